"""Primitives probed where a reader who knows asyncio would look.

- ``Event.set`` then ``clear`` in one step: the waiter woken by the set still returns
  (its wait is over), and sees the event cleared.
- A ``Semaphore(1)`` released to a queued waiter, then asked again by the releaser in
  the same step: the unit went to the waiter, so the releaser queues behind it
  (``locked`` is true, the value 0) even though the waiter has not run yet.
- ``Condition.wait_for`` checks its predicate at once, and again after every notify:
  a notify while the predicate is still false puts the waiter back to wait.
- A ``Barrier(3)`` round: the last party passes at once, the other two in the next
  turn, each with its arrival index; the last one then waits again and is the first of
  a round that ``abort`` breaks, for it and for a later party.
"""

import asyncio

import truthtrace as truth


async def event_waiter(event):
    await event.wait()
    truth.event(f"event-waiter-woke-set-{event.is_set()}")


async def sem_waiter(sem):
    await sem.acquire()
    truth.event("waiter-acquired")
    sem.release()


async def cond_waiter(cond, box):
    async with cond:
        await cond.wait_for(lambda: box[0] >= 2)
        truth.event(f"cond-waiter-saw-{box[0]}")


async def barrier_party(barrier, name, rounds=1):
    try:
        for _ in range(rounds):
            index = await barrier.wait()
            truth.event(f"{name}-passed-{index}")
    except asyncio.BrokenBarrierError:
        truth.event(f"{name}-broken")


async def main():
    loop = asyncio.get_running_loop()
    event = asyncio.Event()
    woken = loop.create_task(event_waiter(event), name="event_waiter")
    await asyncio.sleep(0)
    event.set()
    event.clear()
    await woken

    sem = asyncio.Semaphore(1)
    await sem.acquire()
    waiter = loop.create_task(sem_waiter(sem), name="sem_waiter")
    await asyncio.sleep(0)
    sem.release()
    truth.event(f"released-locked-{sem.locked()}-value-{sem._value}")
    await sem.acquire()
    truth.event("releaser-acquired-again")
    sem.release()
    await waiter

    cond = asyncio.Condition()
    box = [0]
    waiting = loop.create_task(cond_waiter(cond, box), name="cond_waiter")
    for _ in range(2):
        await asyncio.sleep(0)
        async with cond:
            box[0] += 1
            truth.event(f"notify-at-{box[0]}")
            cond.notify()
    await waiting

    barrier = asyncio.Barrier(3)
    parties = [
        loop.create_task(barrier_party(barrier, "a"), name="a"),
        loop.create_task(barrier_party(barrier, "b"), name="b"),
        loop.create_task(barrier_party(barrier, "c", rounds=2), name="c"),
    ]
    for _ in range(3):
        await asyncio.sleep(0)
    truth.event(f"waiting-{barrier.n_waiting}")
    await barrier.abort()
    truth.event(f"aborted-broken-{barrier.broken}-waiting-{barrier.n_waiting}")
    for party in parties:
        await party
    await barrier_party(barrier, "late")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
