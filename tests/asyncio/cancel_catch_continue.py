"""A cancelled task catches the cancel and carries on: it ends with a value, not
cancelled, and ``cancelling()`` still counts the request nobody took back.
"""

import asyncio

import truthtrace as truth


async def stubborn():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("stubborn-caught")
    await asyncio.sleep(0)
    truth.event("stubborn-carried-on")
    return 5


async def main():
    task = asyncio.create_task(stubborn(), name="stubborn")
    await asyncio.sleep(0)
    task.cancel()
    value = await task
    truth.event(f"main-got-{value}-cancelled-{task.cancelled()}-cancelling-{task.cancelling()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
