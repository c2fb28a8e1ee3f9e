"""Two workers add one to a shared counter three times each: read, await a bare
yield, write back. Each reads before the other writes, so half the updates are lost.
"""

import asyncio

import truthtrace as truth

counter = 0


async def worker(name):
    global counter
    for _ in range(3):
        seen = counter
        await asyncio.sleep(0)
        counter = seen + 1
        truth.event(f"{name}-wrote-{counter}")


async def main():
    a = asyncio.create_task(worker("a"), name="a")
    b = asyncio.create_task(worker("b"), name="b")
    await a
    await b
    truth.event(f"counter-{counter}-of-6")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
