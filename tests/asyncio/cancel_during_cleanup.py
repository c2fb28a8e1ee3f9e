"""A second cancel while a task runs the cleanup of the first: the cleanup's own await
raises ``CancelledError``, and the cleanup is cut short. Turn-structured: main yields
between the two cancels, and every sleep is seconds away.
"""

import asyncio

import truthtrace as truth


async def worker():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("worker-cleanup-starts")
        try:
            await asyncio.sleep(10)  # a cleanup that needs the loop
            truth.event("worker-cleanup-done")
        except asyncio.CancelledError:
            truth.event("worker-cleanup-cut-short")
        raise


async def main():
    task = asyncio.create_task(worker(), name="worker")
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        truth.event(f"main-joined-cancelled-{task.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
