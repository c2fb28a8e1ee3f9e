"""Event.set, clear and set again in one step, with two tasks waiting.

The first set wakes both waiters; the clear does not take the wake back, and the
second set finds no one left to wake. Both waiters resume once, in the next turn, and
see the event set. A third task that starts waiting after a later clear is woken by
a set and clear of one step, and finds the event cleared in the next turn.
"""

import asyncio

import truthtrace as truth


async def waiter(name, event):
    await event.wait()
    truth.event(f"{name}-woke-set-{event.is_set()}")


async def main():
    event = asyncio.Event()
    a = asyncio.create_task(waiter("a", event), name="a")
    b = asyncio.create_task(waiter("b", event), name="b")
    await asyncio.sleep(0)
    event.set()
    event.clear()
    event.set()
    truth.event(f"set-clear-set-{event.is_set()}")
    await a
    await b
    event.clear()
    c = asyncio.create_task(waiter("c", event), name="c")
    await asyncio.sleep(0)
    truth.event(f"c-waits-done-{c.done()}")
    event.set()
    event.clear()
    await c
    truth.event(f"main-done-set-{event.is_set()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
