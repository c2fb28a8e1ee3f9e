"""A ``Semaphore`` waiter woken by a ``release`` and cancelled before it runs gives the
unit back and wakes the next waiter; a newcomer that asks while the woken waiter has
not run yet queues behind the waiters, it does not take the unit.
"""

import asyncio

import truthtrace as truth


async def worker(name, sem):
    try:
        async with sem:
            truth.event(f"{name}-in")
            await asyncio.sleep(0)
        truth.event(f"{name}-out")
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def main():
    sem = asyncio.Semaphore(1)
    await sem.acquire()
    a = asyncio.create_task(worker("a", sem), name="a")
    b = asyncio.create_task(worker("b", sem), name="b")
    await asyncio.sleep(0)
    sem.release()
    a.cancel()
    newcomer = asyncio.create_task(worker("c", sem), name="c")
    truth.event(f"released-locked-{sem.locked()}")
    await b
    await newcomer
    try:
        await a
    except asyncio.CancelledError:
        truth.event(f"a-joined-value-{sem._value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
