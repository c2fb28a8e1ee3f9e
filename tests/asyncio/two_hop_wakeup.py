"""A future completed by a callback in turn T resumes its waiter in turn T+1."""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def setter():
        truth.event("set-result")
        future.set_result(1)

    loop.call_soon(setter)
    truth.event("main-awaits")
    value = await future
    truth.event(f"main-resumed-with-{value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
