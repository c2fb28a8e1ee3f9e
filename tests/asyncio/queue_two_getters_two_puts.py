"""Two puts wake two waiting getters; main's get_nowait in that step takes one item.

a and b wait in get, in that order. In one step main puts 1 and 2 (each put wakes
one getter) and takes 1 back with get_nowait. In the next turn a takes 2; b, woken
too, finds the queue empty and waits again, and takes the 3 main puts after that.
"""

import asyncio

import truthtrace as truth


async def getter(name, queue):
    item = await queue.get()
    truth.event(f"{name}-got-{item}")


async def main():
    queue = asyncio.Queue()
    a = asyncio.create_task(getter("a", queue), name="a")
    b = asyncio.create_task(getter("b", queue), name="b")
    await asyncio.sleep(0)
    queue.put_nowait(1)
    queue.put_nowait(2)
    truth.event(f"main-took-{queue.get_nowait()}-size-{queue.qsize()}")
    await a
    truth.event(f"after-a-size-{queue.qsize()}-b-done-{b.done()}")
    queue.put_nowait(3)
    await b
    truth.event(f"main-done-size-{queue.qsize()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
