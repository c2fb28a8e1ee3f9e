"""The order in which a failing ``TaskGroup`` cancels its other children.

Eight children (``member_0`` to ``member_7``) sleep; a ninth fails after a yield. The
group's ``_abort`` cancels the members in the order of its set of tasks, which follows
their hashes (their addresses), not the order they were created; each member sees its
cancel in the step that order queued.
"""

import asyncio

import truthtrace as truth


async def member(name):
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def failing():
    await asyncio.sleep(0)
    raise ValueError("boom")


async def main():
    try:
        async with asyncio.TaskGroup() as tg:
            for n in range(8):
                tg.create_task(member(f"member_{n}"), name=f"member_{n}")
            tg.create_task(failing(), name="failing")
            await asyncio.sleep(10)
    except ExceptionGroup as group:
        truth.event(f"main-caught-{len(group.exceptions)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
