"""A TaskGroup whose child fails late.

- ``after-body``: the body has ended and the group waits for its children when one
  fails: the group cancels the other child (and the waiting task, which takes the
  cancel back), and raises the failure when the cancelled child is done.
- ``in-finally``: a child fails while another, already cancelled, awaits in its
  ``finally``: the group waits for that cleanup and raises both failures.
"""

import asyncio

import truthtrace as truth


def shown(error):
    if isinstance(error, BaseExceptionGroup):
        return "ExceptionGroup[" + ",".join(shown(e) for e in error.exceptions) + "]"
    return f"{type(error).__name__}({error})"


async def fails(name, turns):
    for _ in range(turns):
        await asyncio.sleep(0)
    truth.event(f"{name}-fails")
    raise ValueError(name)


async def sleeper(name):
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise


async def slow_cleanup(name):
    try:
        await asyncio.sleep(10)
    finally:
        truth.event(f"{name}-cleanup-starts")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        truth.event(f"{name}-cleanup-ends")


async def after_body():
    async with asyncio.TaskGroup() as group:
        group.create_task(fails("a", 2), name="a")
        group.create_task(sleeper("b"), name="b")
        truth.event("body-ends")


async def in_finally():
    async with asyncio.TaskGroup() as group:
        group.create_task(fails("c", 1), name="c")
        group.create_task(slow_cleanup("d"), name="d")
        group.create_task(fails("e", 3), name="e")
        await asyncio.sleep(10)


async def main():
    for name, body in [("after-body", after_body), ("in-finally", in_finally)]:
        try:
            await body()
        except BaseException as error:
            task = asyncio.current_task()
            truth.event(f"{name}-raised-{shown(error)}-cancelling-{task.cancelling()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
