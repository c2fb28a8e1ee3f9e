"""A TaskGroup whose body raises: the group cancels its child, waits for it, and raises
one ExceptionGroup, the child's failure first and the body's last.

The body spawns ``noisy`` (whose cleanup raises), yields once and raises
``ValueError("body")``. The group's exit sees the error, cancels the child, waits for
it, and raises ``ExceptionGroup[ValueError(noisy), ValueError(body)]``: 3.11 appends
the body's own error after the errors the children recorded. ``cancelling()`` of main
stays 0: the group never cancelled its owner. (One child: a group cancels several in
its set's order.)
"""

import asyncio

import truthtrace as truth


async def child(name, fails):
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        if fails:
            raise ValueError(name)
        raise


def describe(error):
    if isinstance(error, BaseExceptionGroup):
        inner = ",".join(f"{type(e).__name__}({e})" for e in error.exceptions)
        return f"ExceptionGroup[{inner}]"
    return f"{type(error).__name__}({error})"


async def main():
    me = asyncio.current_task()
    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(child("noisy", True), name="noisy")
            await asyncio.sleep(0)
            truth.event("body-raises")
            raise ValueError("body")
    except BaseException as error:
        truth.event(f"raised-{describe(error)}-cancelling-{me.cancelling()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
