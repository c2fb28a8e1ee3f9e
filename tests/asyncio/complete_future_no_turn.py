"""Awaiting a future that is already complete does not go through the loop."""

import asyncio

import truthtrace as truth


async def main():
    future = asyncio.get_running_loop().create_future()
    future.set_result(3)
    truth.event("before-await")
    value = await future
    truth.event(f"after-await-{value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
