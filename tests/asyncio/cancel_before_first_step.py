"""A task cancelled before its first step never runs its body, not even a ``try``
that would catch the cancel.

Main creates the task and cancels it at once (``True``), then awaits it. The task's
first step, in turn 2, throws the cancel into a coroutine that has not started: the
coroutine ends at once, its ``except`` never entered, and the task ends cancelled,
with one request counted. Main resumes in turn 3.
"""

import asyncio

import truthtrace as truth


async def guarded():
    try:
        truth.event("body-runs")
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        truth.event("body-caught-cancel")
    return 1


async def main():
    loop = asyncio.get_running_loop()
    task = loop.create_task(guarded(), name="guarded")
    truth.event(f"cancel-{task.cancel()}")
    try:
        await task
        truth.event("task-returned")
    except asyncio.CancelledError:
        truth.event(f"task-cancelled-{task.cancelled()}-cancelling-{task.cancelling()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
