"""``shield``: cancelling the task that awaits a shielded task cancels only the await;
the inner task runs to its end. Turn-structured: the inner task yields four times,
main once before it cancels, so no two timers race.
"""

import asyncio

import truthtrace as truth


async def inner():
    for _ in range(4):
        await asyncio.sleep(0)
    truth.event("inner-done")
    return "inner"


async def outer(task):
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        truth.event("outer-cancelled")
        raise


async def main():
    task = asyncio.create_task(inner(), name="inner")
    waiter = asyncio.create_task(outer(task), name="outer")
    await asyncio.sleep(0)
    waiter.cancel()
    try:
        await waiter
    except asyncio.CancelledError:
        truth.event("main-outer-cancelled")
    value = await task
    truth.event(f"main-got-{value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
