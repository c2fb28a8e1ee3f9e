"""asyncio.run ends with a task still waiting: the leftover is cancelled at shutdown."""

import asyncio

import truthtrace as truth


async def leftover():
    truth.event("leftover-waits")
    try:
        await asyncio.get_running_loop().create_future()  # never completed
    finally:
        truth.event("leftover-cleanup")


async def main():
    asyncio.create_task(leftover(), name="leftover")
    await asyncio.sleep(0)
    truth.event("main-returns")


asyncio.run(main())
