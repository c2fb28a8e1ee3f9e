"""asyncio.run of a coroutine that does nothing: how many turns the whole run takes."""

import asyncio

import truthtrace as truth


async def main():
    pass


asyncio.run(main())
