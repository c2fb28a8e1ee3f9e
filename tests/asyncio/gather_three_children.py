"""gather of three children that each yield once: who runs in which turn."""

import asyncio

import truthtrace as truth


async def child(n):
    truth.event(f"child-{n}-step-1")
    await asyncio.sleep(0)
    truth.event(f"child-{n}-step-2")
    return n


async def main():
    truth.event("main-gathers")
    results = await asyncio.gather(*(child(n) for n in range(1, 4)))
    truth.event("main-resumed-" + "-".join(map(str, results)))


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
