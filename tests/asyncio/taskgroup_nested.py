"""Nested TaskGroups: a child of the inner group fails; the inner group cancels its
body and raises, which fails its task in the outer group, which cancels the rest.
"""

import asyncio

import truthtrace as truth


async def failing():
    await asyncio.sleep(0.1)
    raise ValueError("inner")


async def waiting(name):
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def inner_group():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(failing(), name="failing")
        await waiting("inner-body")


async def main():
    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(inner_group(), name="inner-group")
            tg.create_task(waiting("outer-child"), name="outer-child")
            await waiting("outer-body")
    except* ValueError as group:
        truth.event(f"main-caught-{len(group.exceptions)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
