"""A queue's woken waiter does not own what woke it: a newcomer can take it first.

- A put wakes the waiting getter, and main's ``get_nowait`` in the same step takes
  the item: the getter runs in turn 3, finds the queue empty and waits again, and gets
  the next item in turn 4.
- With ``maxsize`` 1, a get wakes the waiting putter, and main's ``put_nowait`` fills
  the slot first: the putter runs in turn 7, finds the queue full and waits again, and
  puts in turn 8, after the next get.
"""

import asyncio

import truthtrace as truth


async def getter(queue):
    item = await queue.get()
    truth.event(f"getter-got-{item}")


async def putter(queue):
    await queue.put("p")
    truth.event("putter-put")


async def main():
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()
    waiting = loop.create_task(getter(queue), name="getter")
    await asyncio.sleep(0)
    queue.put_nowait("x")
    truth.event(f"main-took-{queue.get_nowait()}")
    await asyncio.sleep(0)
    queue.put_nowait("y")
    await waiting

    full = asyncio.Queue(maxsize=1)
    full.put_nowait("a")
    waiting = loop.create_task(putter(full), name="putter")
    await asyncio.sleep(0)
    truth.event(f"main-took-{full.get_nowait()}")
    full.put_nowait("b")
    await asyncio.sleep(0)
    truth.event(f"main-took-{full.get_nowait()}")
    await waiting
    truth.event(f"left-{full.get_nowait()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
