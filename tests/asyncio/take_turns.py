"""Two CPU-bound tasks take turns when they yield, and run one after the other when not."""

import asyncio

import truthtrace as truth


async def worker(name, yielding):
    for step in range(3):
        truth.event(f"{name}{step}")
        if yielding:
            await asyncio.sleep(0)


async def main(yielding):
    a = asyncio.create_task(worker("A", yielding), name="A")
    b = asyncio.create_task(worker("B", yielding), name="B")
    await a
    await b


for yielding in (True, False):
    truth.section("yielding" if yielding else "not-yielding")
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main(yielding))
    loop.close()
