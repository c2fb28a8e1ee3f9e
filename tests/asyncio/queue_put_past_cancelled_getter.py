"""A put passes over a getter cancelled before it, and wakes the next one.

a and b wait in get, in that order. In one step main cancels a, then puts x: the
put skips a, whose wait is already cancelled, and wakes b. In the next turn a sees
its cancel and b takes x; the queue is empty after.
"""

import asyncio

import truthtrace as truth


async def getter(name, queue):
    try:
        item = await queue.get()
        truth.event(f"{name}-got-{item}")
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled-size-{queue.qsize()}")
        raise


async def main():
    queue = asyncio.Queue()
    a = asyncio.create_task(getter("a", queue), name="a")
    b = asyncio.create_task(getter("b", queue), name="b")
    await asyncio.sleep(0)
    a.cancel()
    queue.put_nowait("x")
    truth.event(f"cancelled-a-put-x-size-{queue.qsize()}")
    await b
    try:
        await a
    except asyncio.CancelledError:
        truth.event(f"a-joined-size-{queue.qsize()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
