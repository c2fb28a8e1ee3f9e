"""``TaskGroup`` corners: what ``__aexit__`` raises, and ``cancelling()`` after.

- ``two-fail``: two children fail in one turn; both errors, in the order they failed.
- ``fail-under-outer``: a child fails in the turn the body gets a cancel from outside;
  the group raises the child's error, not the cancel, and the outer request stays
  counted.
- ``refused``: the body, cancelled by the group for a failed child, tries to add a
  task; the group refuses (``RuntimeError``), and raises the child's error.
- ``outer-cancel``: a cancel from outside while the body waits; the children are
  cancelled and the cancel comes out, with its message.
- ``body-swallows``: the body catches the group's cancel and returns; the group still
  raises the child's error, and takes its request back.
"""

import asyncio

import truthtrace as truth


def show(error):
    if isinstance(error, BaseExceptionGroup):
        inner = ",".join(show(e) for e in error.exceptions)
        return f"{type(error).__name__}[{inner}]"
    return f"{type(error).__name__}({','.join(map(str, error.args))})"


async def fail_after(yields, text):
    for _ in range(yields):
        await asyncio.sleep(0)
    raise ValueError(text)


async def grouped(name, body):
    me = asyncio.current_task()
    try:
        async with asyncio.TaskGroup() as tg:
            await body(tg)
    except BaseException as error:
        truth.event(f"{name}-raised-{show(error)}-cancelling-{me.cancelling()}")
        if isinstance(error, asyncio.CancelledError):
            raise


async def two_fail(tg):
    tg.create_task(fail_after(1, "a"))
    tg.create_task(fail_after(1, "b"))
    await asyncio.sleep(10)


async def fail_under_outer(tg):
    tg.create_task(fail_after(0, "c"))
    await asyncio.sleep(10)


async def refused(tg):
    tg.create_task(fail_after(0, "d"))
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        late = fail_after(0, "e")
        try:
            tg.create_task(late)
        except RuntimeError:
            late.close()
            truth.event("refused-new-task")
        raise


async def sleeper():
    await asyncio.sleep(10)


async def outer_cancel(tg):
    tg.create_task(sleeper())
    await asyncio.sleep(10)


async def body_swallows(tg):
    tg.create_task(fail_after(1, "f"))
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("body-swallowed-the-cancel")


async def main():
    for name, body, cancel in [
        ("two-fail", two_fail, None),
        ("fail-under-outer", fail_under_outer, "outer"),
        ("refused", refused, None),
        ("outer-cancel", outer_cancel, "outer"),
        ("body-swallows", body_swallows, None),
    ]:
        task = asyncio.create_task(grouped(name, body), name=name)
        if cancel is not None:
            await asyncio.sleep(0)
            task.cancel(cancel)
        try:
            await task
        except asyncio.CancelledError:
            pass
        truth.event(f"{name}-ended-cancelled-{task.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
