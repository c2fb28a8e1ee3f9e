"""``shield`` when the shielded task ends while it is awaited: returning, and cancelled
from elsewhere.

``shield`` hands back an outer future tied to the task by a done callback,
``_inner_done_callback``. The task ends in turn T; the callback runs in turn T+1 and
completes the outer future; the awaiting task resumes in turn T+2, a hop more than
awaiting the task itself.

In the second section main cancels the shielded task (with a message). The callback
cancels the outer future, with no message, so the awaiting task sees a cancel it can
catch, though no one asked to cancel *it*: its ``cancelling()`` stays 0.
"""

import asyncio

import truthtrace as truth


async def inner(name):
    try:
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise
    truth.event(f"{name}-returns")
    return name


async def outer(task):
    me = asyncio.current_task()
    try:
        value = await asyncio.shield(task)
    except asyncio.CancelledError as error:
        message = error.args[0] if error.args else None
        truth.event(f"outer-caught-cancel-{message}-cancelling-{me.cancelling()}")
        return "caught"
    truth.event(f"outer-got-{value}")
    return value


async def main(cancel_inner):
    task = asyncio.create_task(inner("inner"), name="inner")
    waiter = asyncio.create_task(outer(task), name="outer")
    await asyncio.sleep(0)
    if cancel_inner:
        task.cancel("stop")
    value = await waiter
    truth.event(f"main-joined-{value}-inner-cancelled-{task.cancelled()}")


for section, cancel_inner in (("inner-returns", False), ("inner-cancelled", True)):
    truth.section(section)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main(cancel_inner))
    loop.close()
