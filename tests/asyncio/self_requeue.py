"""A callback that queues itself again runs once per turn, and everything else still runs."""

import asyncio

import truthtrace as truth


def spin():
    truth.event("spin")
    asyncio.get_running_loop().call_soon(spin)


async def main():
    for step in range(3):
        truth.event(f"main-{step}")
        await asyncio.sleep(0)
    truth.event("main-done")


loop = asyncio.new_event_loop()
loop.call_soon(spin)
loop.run_until_complete(main())
loop.close()
