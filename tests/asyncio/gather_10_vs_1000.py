"""gather of 10 children and of 1000 that each yield once take the same turns."""

import asyncio

import truthtrace as truth


async def child(n):
    await asyncio.sleep(0)
    return n


async def main(count):
    results = await asyncio.gather(*(child(n) for n in range(count)))
    truth.event(f"gathered-{len(results)}")


for count in (10, 1000):
    truth.section(f"gather-{count}")
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main(count))
    loop.close()
