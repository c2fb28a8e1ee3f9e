"""Three nested awaits of coroutines where nothing waits cost no turn."""

import asyncio

import truthtrace as truth


async def inner():
    truth.event("inner")
    return 1


async def middle():
    truth.event("middle")
    return await inner() + 1


async def outer():
    truth.event("outer")
    return await middle() + 1


async def main():
    value = await outer()
    truth.event(f"main-got-{value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
