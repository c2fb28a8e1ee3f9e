"""A task's done callback registers at once and runs in the turn after the task ends.

The callback is added before the task has run a step, and a ``call_soon`` is queued
after it. The task ends in turn 2, behind nothing: its end queues the done callback at
the back of the ready queue, so ``soon`` (queued in turn 1) runs first and the callback
runs in turn 3.
"""

import asyncio

import truthtrace as truth


async def child():
    truth.event("child-returns")
    return 7


def done_callback(task):
    truth.event(f"done-{task.result()}")


def soon():
    truth.event("soon")


async def main():
    loop = asyncio.get_running_loop()
    task = loop.create_task(child(), name="child")
    task.add_done_callback(done_callback)
    loop.call_soon(soon)
    await asyncio.sleep(0)
    truth.event("main-resumed")
    await asyncio.sleep(0)
    truth.event("main-ends")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
