"""sleep(0) is a bare yield: no timer, one turn per call, like oneloop's yield_now.

asyncio has no ``yield_now``: ``await asyncio.sleep(0)`` is its way to yield, and it
makes no timer (``len(loop._scheduled)`` stays 0). The script runs the same program
twice; on the Rust side the first section uses ``sleep(Duration::ZERO)``, the second
``yield_now()``, and both must take the turns asyncio takes.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    for step in range(3):
        truth.event(f"main-{step}")
        await asyncio.sleep(0)
        truth.event(f"timers-{len(loop._scheduled)}")
    truth.event("main-done")


for name in ("sleep-zero", "yield-now"):
    truth.section(name)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main())
    loop.close()
