"""A task that fails with no one holding it is reported in the turn of its failing
step, right after that step.

Main creates ``failing`` and keeps no reference to it (the loop holds its tasks
weakly). ``failing`` yields once and raises in turn 3. Nothing refers to the task
once that step's handle is gone, so CPython destroys it before the next handle of
the turn runs, and its destructor reports "Task exception was never retrieved" to
the loop's exception handler. oneloop reports a task that panicked after its join
handle was dropped when the task finishes: the same place in the trace.
"""

import asyncio

import truthtrace as truth


async def failing():
    await asyncio.sleep(0)
    raise ValueError("oops")


def handler(_loop, context):
    if context["message"] == "Task exception was never retrieved":
        truth.event(f"report-never-retrieved-{context['exception']}")
    else:
        truth.event(f"report-{context['message']}")


async def main():
    asyncio.get_running_loop().set_exception_handler(handler)
    asyncio.get_running_loop().create_task(failing(), name="failing")
    truth.event("spawned-and-dropped")
    for _ in range(3):
        await asyncio.sleep(0)
    truth.event("main-done")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
