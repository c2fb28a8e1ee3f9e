"""Cancelling a task that awaits ``gather``: the cancel goes on to every child.

- ``collect`` (``return_exceptions=True``): the task resumes once the last child is
  done, with a ``CancelledError``, even though one child caught its cancel and
  returned a value. The children clean up for 0, 2 and 1 yields.
- ``first`` (``return_exceptions=False``): the first child that ends cancelled ends
  the gather at once with that cancel. The children do not clean up.
- ``last-returns`` (``return_exceptions=True``): the last child, in argument order,
  catches its cancel and returns. The gather's ``CancelledError`` is made from that
  last child, which was not cancelled, so it has no message.
"""

import asyncio

import truthtrace as truth


async def child(case, name, cleanup, swallow):
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event(f"{case}-{name}-cancelled")
        for _ in range(cleanup):
            await asyncio.sleep(0)
        if not swallow:
            raise
    return name


async def gatherer(case, collect, cleanups, swallower):
    children = [
        child(case, name, cleanup, name == swallower)
        for name, cleanup in zip("abc", cleanups)
    ]
    try:
        await asyncio.gather(*children, return_exceptions=collect)
        truth.event(f"{case}-got-results")
    except asyncio.CancelledError as error:
        message = error.args[0] if error.args else "None"
        truth.event(f"{case}-cancelled-{message}")
        raise


async def main():
    for case, collect, cleanups, swallower in [
        ("collect", True, (0, 2, 1), "b"),
        ("first", False, (0, 0, 0), "b"),
        ("last-returns", True, (0, 0, 0), "c"),
    ]:
        task = asyncio.create_task(gatherer(case, collect, cleanups, swallower), name=case)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        task.cancel("stop")
        try:
            await task
        except asyncio.CancelledError:
            truth.event(f"{case}-joined-cancelled-{task.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
