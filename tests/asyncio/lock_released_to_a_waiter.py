"""Lock.locked() between a release and the woken waiter's turn.

main holds the lock and a waits; c yields once before it asks. main releases: the
lock is free (locked() is False), though a was woken. In the next turn c asks
first, before a runs, and queues behind a instead of taking the free lock; then a
takes it (locked() is True again), and c gets it in the turn after a lets it go.
"""

import asyncio

import truthtrace as truth


async def waiter(name, lock):
    async with lock:
        truth.event(f"{name}-acquired")
        await asyncio.sleep(0)


async def late_waiter(name, lock):
    await asyncio.sleep(0)
    truth.event(f"{name}-asks-locked-{lock.locked()}")
    await waiter(name, lock)


async def main():
    lock = asyncio.Lock()
    await lock.acquire()
    a = asyncio.create_task(waiter("a", lock), name="a")
    c = asyncio.create_task(late_waiter("c", lock), name="c")
    await asyncio.sleep(0)
    lock.release()
    truth.event(f"released-locked-{lock.locked()}")
    await asyncio.sleep(0)
    truth.event(f"after-turn-locked-{lock.locked()}")
    await a
    await c
    truth.event(f"main-done-locked-{lock.locked()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
