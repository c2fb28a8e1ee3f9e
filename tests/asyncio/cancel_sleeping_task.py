"""A task sleeping 10 s is cancelled with a message: its cleanup sees the message at
its await, awaits a 0.1 s sleep of its own, and the task ends cancelled.

``task.cancel(msg)`` cancels the future the sleep awaits; the task's next step gets
``CancelledError`` at ``await asyncio.sleep(10)``; the ``except`` may await.
"""

import asyncio

import truthtrace as truth


async def sleeper():
    try:
        truth.event("sleeper-sleeps")
        await asyncio.sleep(10)
    except asyncio.CancelledError as error:
        truth.event(f"sleeper-saw-{error.args[0]}")
        await asyncio.sleep(0.1)
        truth.event("sleeper-cleaned-up")
        raise


async def main():
    task = asyncio.create_task(sleeper(), name="sleeper")
    await asyncio.sleep(0)
    truth.event("cancelling")
    task.cancel("stop")
    try:
        await task
    except asyncio.CancelledError:
        truth.event(f"main-joined-cancelled-{task.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
