"""``asyncio.timeout`` whose deadline comes in the same turn as a cancel from outside,
before the task's next step: two requests, one of them the scope's own.

The scope takes its request back; one is left, so the body's ``CancelledError`` stays
a cancel, with the message of whichever request reached the sleeping task first, and
``cancelling()`` is 1 afterwards. ``expired()`` is true either way.

The outer cancel is a ``call_at`` timer with the scope's deadline, scheduled before
the scope arms its own timer (outer first) or after (deadline first): timers with one
deadline run in the order they were scheduled when there are two.
"""

import asyncio

import truthtrace as truth


async def body(name, when):
    me = asyncio.current_task()
    scope = asyncio.timeout_at(when)
    try:
        async with scope:
            await asyncio.sleep(10)
    except TimeoutError:
        truth.event(f"{name}-timed-out")
    except asyncio.CancelledError as error:
        message = error.args[0] if error.args else "None"
        truth.event(
            f"{name}-cancelled-{message}-expired-{scope.expired()}"
            f"-cancelling-{me.cancelling()}"
        )
        raise


def outer_cancel(task):
    task.cancel("outer")


async def main():
    loop = asyncio.get_running_loop()
    for name in ["outer-first", "deadline-first"]:
        when = loop.time() + 0.1
        task = asyncio.create_task(body(name, when), name=name)
        if name == "deadline-first":
            await asyncio.sleep(0)
        loop.call_at(when, outer_cancel, task)
        try:
            await task
        except asyncio.CancelledError:
            truth.event(f"{name}-joined-cancelled-{task.cancelled()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
