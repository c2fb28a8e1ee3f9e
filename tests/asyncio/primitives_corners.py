"""Corners of the primitives, and their misuse.

- A queue getter woken by a ``put`` and cancelled before it runs passes the wake on:
  the next getter takes the item, in the turn after.
- ``put_nowait`` on a full queue and ``get_nowait`` on an empty one fail at once;
  ``join`` with nothing put returns without a turn; one ``task_done`` too many fails.
- A ``Semaphore`` released above its start counts up; a ``BoundedSemaphore`` refuses
  and keeps its value; a ``Lock`` released while free refuses.
"""

import asyncio

import truthtrace as truth


async def getter(name, queue):
    try:
        item = await queue.get()
        truth.event(f"{name}-got-{item}")
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def main():
    queue = asyncio.Queue()
    a = asyncio.create_task(getter("a", queue), name="a")
    b = asyncio.create_task(getter("b", queue), name="b")
    await asyncio.sleep(0)
    queue.put_nowait("x")
    a.cancel()
    truth.event("put-and-cancelled-a")
    await b
    try:
        await a
    except asyncio.CancelledError:
        truth.event("a-joined-cancelled")

    full = asyncio.Queue(maxsize=1)
    full.put_nowait(1)
    try:
        full.put_nowait(2)
    except asyncio.QueueFull:
        truth.event("put-nowait-full")
    full.get_nowait()
    try:
        full.get_nowait()
    except asyncio.QueueEmpty:
        truth.event("get-nowait-empty")
    full.task_done()
    await asyncio.Queue().join()
    truth.event("join-of-nothing-returned")
    try:
        full.task_done()
    except ValueError:
        truth.event("task-done-too-many")

    sem = asyncio.Semaphore(1)
    sem.release()
    sem.release()
    truth.event(f"semaphore-value-{sem._value}")
    bounded = asyncio.BoundedSemaphore(1)
    try:
        bounded.release()
    except ValueError:
        truth.event(f"bounded-refused-value-{bounded._value}")
    lock = asyncio.Lock()
    try:
        lock.release()
    except RuntimeError:
        truth.event(f"lock-refused-locked-{lock.locked()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
