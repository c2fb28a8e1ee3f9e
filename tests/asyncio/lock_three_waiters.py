"""main holds a Lock; three tasks queue for it in the order a, b, c. Each gets it in
that order, one turn after the previous holder releases it. main releases and at once
asks again: it queues behind the waiters instead of taking the free lock back.
"""

import asyncio

import truthtrace as truth


async def waiter(name, lock):
    await lock.acquire()
    truth.event(f"{name}-acquired")
    await asyncio.sleep(0)
    truth.event(f"{name}-releases")
    lock.release()


async def main():
    lock = asyncio.Lock()
    await lock.acquire()
    tasks = [asyncio.create_task(waiter(n, lock), name=n) for n in "abc"]
    await asyncio.sleep(0)
    truth.event("main-releases")
    lock.release()
    await lock.acquire()
    truth.event("main-acquired-again")
    lock.release()
    for task in tasks:
        await task


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
