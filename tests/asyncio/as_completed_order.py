"""``as_completed`` yields results in the order the tasks finished.

``t1`` is created before ``t0`` but passed after it; both finish after two yields, in
one turn, ``t1`` first (it was queued first). Main gets ``t1``, then ``t0``: the order
of the finishes, not of the arguments.
"""

import asyncio

import truthtrace as truth


async def child(name, yields):
    for _ in range(yields):
        await asyncio.sleep(0)
    truth.event(f"{name}-done")
    return name


async def main():
    t1 = asyncio.create_task(child("t1", 2), name="t1")
    t0 = asyncio.create_task(child("t0", 2), name="t0")
    order = []
    for next_done in asyncio.as_completed([t0, t1]):
        order.append(await next_done)
        truth.event(f"main-got-{order[-1]}")
    truth.event(f"main-got-{'-'.join(order)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
