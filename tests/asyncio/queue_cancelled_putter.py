"""A putter woken by a get and then cancelled before it runs passes the room on to
the next putter.

A ``Queue(maxsize=1)`` holds ``x``; ``p1`` and ``p2`` wait to put. Main takes ``x``
with ``get_nowait``, which wakes ``p1``, and cancels ``p1`` in the same step. ``p1``
runs first in the next turn and raises; since the queue has room and its wake was
not lost, it wakes ``p2``, which puts its item a turn later.
"""

import asyncio

import truthtrace as truth


async def putter(name, queue):
    try:
        await queue.put(name)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled-size-{queue.qsize()}")
        raise
    truth.event(f"{name}-put-size-{queue.qsize()}")


async def main():
    queue = asyncio.Queue(maxsize=1)
    queue.put_nowait("x")
    p1 = asyncio.create_task(putter("p1", queue), name="p1")
    p2 = asyncio.create_task(putter("p2", queue), name="p2")
    await asyncio.sleep(0)
    truth.event(f"main-took-{queue.get_nowait()}")
    p1.cancel()
    await p2
    truth.event(f"main-sees-{queue.get_nowait()}-p1-cancelled-{p1.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
