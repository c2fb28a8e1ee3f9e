"""``Condition.notify(1)`` skips a waiter that was cancelled in the same step.

Three tasks wait on one condition, queued a, b, c. Main takes the lock, cancels ``a``
and then calls ``notify(1)`` before ``a`` has run: ``a``'s future is already
cancelled, so ``notify`` passes over it without counting it and wakes ``b``. ``a``
runs first in the next turn (its wake was queued first), takes the free lock back and
raises; ``b`` then takes the lock ``a`` let go of and returns notified. ``c`` is left
waiting until main notifies it.
"""

import asyncio

import truthtrace as truth


async def waiter(name, cond):
    async with cond:
        try:
            await cond.wait()
        except asyncio.CancelledError:
            truth.event(f"{name}-cancelled-locked-{cond.locked()}")
            raise
        truth.event(f"{name}-notified-locked-{cond.locked()}")


async def main():
    cond = asyncio.Condition()
    tasks = {name: asyncio.create_task(waiter(name, cond), name=name) for name in "abc"}
    await asyncio.sleep(0)
    async with cond:
        tasks["a"].cancel()
        cond.notify(1)
        truth.event("cancelled-a-notified-one")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    truth.event(f"c-done-{tasks['c'].done()}")
    async with cond:
        cond.notify(1)
    await tasks["c"]
    truth.event(f"a-cancelled-{tasks['a'].cancelled()}-b-done-{tasks['b'].done()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
