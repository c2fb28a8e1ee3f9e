"""``wait_for`` on a slow task: at the deadline the task is cancelled and awaited, and
``wait_for`` raises ``TimeoutError``. The task sees the cancel at its await.
"""

import asyncio

import truthtrace as truth


async def slow():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("slow-saw-cancel")
        raise
    return "slow"


async def main():
    task = asyncio.create_task(slow(), name="slow")
    try:
        await asyncio.wait_for(task, 0.1)
    except TimeoutError:
        truth.event(f"main-timed-out-task-cancelled-{task.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
