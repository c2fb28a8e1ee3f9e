"""Cancelling a task that awaits another task cancels the awaited one: the child sees
the cancel first, ends, and then the parent sees it at its own await.
"""

import asyncio

import truthtrace as truth


async def child():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("child-cancelled")
        raise


async def parent():
    inner = asyncio.create_task(child(), name="child")
    try:
        await inner
    except asyncio.CancelledError:
        truth.event(f"parent-cancelled-child-{inner.cancelled()}")
        raise


async def main():
    task = asyncio.create_task(parent(), name="parent")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        truth.event("main-joined")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
