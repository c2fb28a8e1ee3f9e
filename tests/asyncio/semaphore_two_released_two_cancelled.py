"""A Semaphore(2): two releases in one step wake two waiters, two cancels in that step.

main holds both units; a, b, c and d wait in that order. In one step main releases
twice, which wakes a and b, then cancels a (woken) and c (not woken). a gives its
wake on to the next waiter still waiting; c leaves the queue. Who gets in, in which
turn, and the value at the end.
"""

import asyncio

import truthtrace as truth


async def worker(name, sem):
    try:
        async with sem:
            truth.event(f"{name}-in-value-{sem._value}")
            await asyncio.sleep(0)
        truth.event(f"{name}-out")
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def main():
    sem = asyncio.Semaphore(2)
    await sem.acquire()
    await sem.acquire()
    tasks = {n: asyncio.create_task(worker(n, sem), name=n) for n in "abcd"}
    await asyncio.sleep(0)
    sem.release()
    sem.release()
    tasks["a"].cancel()
    tasks["c"].cancel()
    truth.event(f"released-value-{sem._value}-locked-{sem.locked()}")
    for name in "bd":
        await tasks[name]
    for name in "ac":
        try:
            await tasks[name]
        except asyncio.CancelledError:
            truth.event(f"{name}-joined-cancelled")
    truth.event(f"main-done-value-{sem._value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
