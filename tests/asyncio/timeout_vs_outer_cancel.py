"""``asyncio.timeout``: expiring turns the scope's own cancel into ``TimeoutError``;
a cancel from outside during the scope stays a ``CancelledError``.
"""

import asyncio

import truthtrace as truth


async def expiring():
    try:
        async with asyncio.timeout(0.1):
            await asyncio.sleep(10)
    except TimeoutError:
        truth.event(f"timed-out-cancelling-{asyncio.current_task().cancelling()}")


async def guarded():
    try:
        async with asyncio.timeout(0.5):
            await asyncio.sleep(10)
    except TimeoutError:
        truth.event("wrongly-timed-out")
    except asyncio.CancelledError:
        truth.event("guarded-cancelled")
        raise


async def main():
    await asyncio.create_task(expiring(), name="expiring")
    task = asyncio.create_task(guarded(), name="guarded")
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        truth.event("main-joined-guarded")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
