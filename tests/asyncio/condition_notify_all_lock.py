"""``notify_all`` wakes three waiters, and each takes the lock back in turn.

The first woken holds the lock across a yield: the other two, woken in the same turn,
queue for the lock, and each gets it a turn after the one before releases it.
"""

import asyncio

import truthtrace as truth


async def waiter(cond, name):
    async with cond:
        await cond.wait()
        truth.event(f"{name}-has-lock")
        await asyncio.sleep(0)
        truth.event(f"{name}-releases")


async def main():
    loop = asyncio.get_running_loop()
    cond = asyncio.Condition()
    tasks = [loop.create_task(waiter(cond, name), name=name) for name in "abc"]
    await asyncio.sleep(0)
    async with cond:
        cond.notify_all()
        truth.event("notified")
    for task in tasks:
        await task


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
