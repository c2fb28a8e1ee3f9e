"""A child of a ``TaskGroup`` spawns a sibling after the body has ended: the group
waits for the sibling too. Once the group has exited, it refuses new tasks.

The body spawns ``first`` and ends at once; the group then waits. ``first`` yields,
spawns ``late`` into the same group and returns. ``late`` yields twice and returns.
The group's wait ends only after ``late``: its ``_on_task_done`` runs in the turn
after ``late`` ends and completes the group's waiter, and main leaves the group a
turn later. Then ``create_task`` on the finished group raises.
"""

import asyncio

import truthtrace as truth


async def late():
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    truth.event("late-returns")


async def first(tg):
    await asyncio.sleep(0)
    tg.create_task(late(), name="late")
    truth.event("first-spawned-late")


async def main():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(first(tg), name="first")
        truth.event("body-ends")
    truth.event("group-exited")
    refused = late()
    try:
        tg.create_task(refused, name="refused")
    except RuntimeError as error:
        refused.close()
        truth.event(f"refused-finished-{str(error).endswith('is finished')}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
