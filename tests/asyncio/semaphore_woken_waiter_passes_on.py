"""A semaphore's second release in one step, while the first waiter it woke has not run
yet: a newcomer queues behind that waiter, which passes the free unit on when it runs.

``a`` waits on a ``Semaphore(0)``. Main creates ``c`` and releases twice: the first
release hands its unit to ``a``; the second finds no waiter left to wake, and the
value is 1. ``c`` runs first in the next turn. The semaphore counts as locked while
``a``, woken but not yet resumed, is still queued, so ``c`` waits though a unit is
free. ``a`` then resumes, sees the free unit and wakes ``c``, which gets in a turn
later.
"""

import asyncio

import truthtrace as truth


async def worker(name, sem):
    truth.event(f"{name}-asks-locked-{sem.locked()}-value-{sem._value}")
    await sem.acquire()
    truth.event(f"{name}-in-value-{sem._value}")


async def main():
    sem = asyncio.Semaphore(0)
    a = asyncio.create_task(worker("a", sem), name="a")
    await asyncio.sleep(0)
    c = asyncio.create_task(worker("c", sem), name="c")
    sem.release()
    sem.release()
    truth.event(f"released-twice-value-{sem._value}-locked-{sem.locked()}")
    await c
    await a
    truth.event(f"main-value-{sem._value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
