"""A TaskGroup whose child fails at 0.1 s: its sibling and the body are cancelled,
 and the group raises an ExceptionGroup with the one error.
"""

import asyncio

import truthtrace as truth


async def sibling(name, delay):
    try:
        await asyncio.sleep(delay)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def bad():
    await asyncio.sleep(0.1)
    raise ValueError("boom")


async def main():
    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(sibling("a", 10), name="a")
            tg.create_task(bad(), name="bad")
            try:
                await asyncio.sleep(100)
            except asyncio.CancelledError:
                truth.event("body-cancelled")
                raise
    except* ValueError as group:
        truth.event(f"main-caught-{len(group.exceptions)}-{group.exceptions[0]}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
