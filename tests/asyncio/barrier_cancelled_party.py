"""A Barrier(3) whose waiting party is cancelled: the round needs another party.

a and b wait; a is cancelled and leaves the round, so c's arrival makes two, not
three, and the round waits for d. A party's index is the number of parties in the
round when it came: b came after a, so 1; c came when only b was left, so 1 as well;
d, the last, 2. Two parties of one round pass with the same index.
"""

import asyncio

import truthtrace as truth


async def party(barrier, name):
    try:
        index = await barrier.wait()
        truth.event(f"{name}-passed-{index}")
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled-waiting-{barrier.n_waiting}")
        raise


async def main():
    barrier = asyncio.Barrier(3)
    a = asyncio.create_task(party(barrier, "a"), name="a")
    b = asyncio.create_task(party(barrier, "b"), name="b")
    await asyncio.sleep(0)
    truth.event(f"two-waiting-{barrier.n_waiting}")
    a.cancel()
    await asyncio.sleep(0)
    c = asyncio.create_task(party(barrier, "c"), name="c")
    await asyncio.sleep(0)
    truth.event(f"after-c-waiting-{barrier.n_waiting}-broken-{barrier.broken}")
    d = asyncio.create_task(party(barrier, "d"), name="d")
    for task in (b, c, d):
        await task
    truth.event(f"main-done-waiting-{barrier.n_waiting}-cancelled-{a.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
