"""A task that awaits another task resumes one turn after that task finishes."""

import asyncio

import truthtrace as truth


async def child():
    truth.event("child-step-1")
    await asyncio.sleep(0)
    truth.event("child-returns")
    return 7


async def main():
    task = asyncio.create_task(child(), name="child")
    truth.event("main-awaits-child")
    value = await task
    truth.event(f"main-joined-{value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
