"""A Semaphore release that finds only a cancelled waiter leaves the unit free.

main holds the one unit; a waits and is cancelled. main releases in the same step:
the release passes over the cancelled waiter, so the value is 1, and main's next
acquire takes the unit at once, with no turn. a sees its cancel in the next turn.
"""

import asyncio

import truthtrace as truth


async def worker(name, sem):
    try:
        async with sem:
            truth.event(f"{name}-in")
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled-value-{sem._value}")
        raise


async def main():
    sem = asyncio.Semaphore(1)
    await sem.acquire()
    a = asyncio.create_task(worker("a", sem), name="a")
    await asyncio.sleep(0)
    a.cancel()
    sem.release()
    truth.event(f"released-value-{sem._value}-locked-{sem.locked()}")
    await sem.acquire()
    truth.event(f"main-took-it-again-value-{sem._value}")
    try:
        await a
    except asyncio.CancelledError:
        truth.event(f"a-joined-value-{sem._value}")
    sem.release()
    truth.event(f"main-done-value-{sem._value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
