"""A timeout around a TaskGroup: the deadline cancels the body, the group cancels its
child and waits for it, and then the scope decides what comes out.

- ``quiet``: the child takes the cancel and ends cancelled. The group passes the
  body's cancel on, and the scope turns it into ``TimeoutError``.
- ``cleanup-fails``: the child raises ``ValueError`` from its cleanup. The group then
  raises an ``ExceptionGroup`` holding it, which is not a cancel: it leaves the scope
  as it is, and the scope still takes its own request back, so ``cancelling()`` is 0.

One child per group: a group cancels its children in its set's order, which one child
leaves no room for.
"""

import asyncio

import truthtrace as truth


async def child(label, fails):
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event(f"{label}-child-cancelled")
        if fails:
            raise ValueError(label)
        raise


def describe(error):
    if isinstance(error, BaseExceptionGroup):
        inner = ",".join(f"{type(e).__name__}({e})" for e in error.exceptions)
        return f"ExceptionGroup[{inner}]"
    return type(error).__name__


async def main():
    me = asyncio.current_task()
    for label, fails in (("quiet", False), ("cleanup-fails", True)):
        try:
            async with asyncio.timeout(0.01):
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(child(label, fails), name="child")
                    await asyncio.sleep(10)
        except BaseException as error:  # TimeoutError, or the group's failure
            truth.event(f"{label}-raised-{describe(error)}-cancelling-{me.cancelling()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
