"""asyncio.run ends with two tasks left: both are cancelled and awaited before the
loop closes. One is in the ready queue when main returns (it yields at every step),
one waits on a sleep; the one in the queue runs first either way. Its cleanup fails,
which the shutdown reports; the other's cleanup awaits once and re-raises.
"""

import asyncio

import truthtrace as truth


async def spinning():
    try:
        while True:
            await asyncio.sleep(0)
    except asyncio.CancelledError:
        raise ValueError("cleanup failed")


async def sleeping():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("sleeping-saw-cancel")
        await asyncio.sleep(0)
        truth.event("sleeping-cleaned-up")
        raise


def on_exception(_loop, context):
    task = context.get("task")
    name = task.get_name() if task is not None else "-"
    truth.event(f"shutdown-failed-{name}-{context.get('exception')}")


async def main():
    asyncio.get_running_loop().set_exception_handler(on_exception)
    asyncio.create_task(spinning(), name="spinning")
    asyncio.create_task(sleeping(), name="sleeping")
    await asyncio.sleep(0)
    truth.event("main-returns")


asyncio.run(main())
