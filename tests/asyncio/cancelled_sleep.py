"""A task sleeping 10 s is cancelled: its timer is cancelled, swept, and the task ends.

``task.cancel()`` cancels the future the sleep awaits, which queues the task's step;
in that step ``CancelledError`` comes out of ``await future``, the sleep's ``finally``
cancels its ``TimerHandle`` (counted in ``_timer_cancelled_count``), and the task ends
cancelled. The cancelled timer is at the head of the heap, so the next turn's sweep
pops it. The counts are ``len(loop._scheduled)`` and ``loop._timer_cancelled_count``;
nothing waits for real time.
"""

import asyncio

import truthtrace as truth


def counts(loop):
    return f"scheduled={len(loop._scheduled)}-cancelled={loop._timer_cancelled_count}"


async def sleeper():
    loop = asyncio.get_running_loop()
    try:
        truth.event("sleeper-sleeps")
        await asyncio.sleep(10)
    finally:
        truth.event(f"sleeper-ends-{counts(loop)}")


async def main():
    loop = asyncio.get_running_loop()
    task = asyncio.create_task(sleeper(), name="sleeper")
    await asyncio.sleep(0)  # the sleeper takes its first step and sleeps
    truth.event(f"cancelling-{counts(loop)}")
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    truth.event(f"main-resumed-{counts(loop)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
