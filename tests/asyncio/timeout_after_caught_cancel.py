"""A timeout in a task that caught an earlier cancel and kept its request count.

Main cancels itself and catches the cancel at a ``sleep(0)`` without calling
``uncancel``: ``cancelling()`` stays 1. Then a 0.01 s ``asyncio.timeout`` expires
around a long sleep. 3.11.7's scope remembers the count it found when it was
entered, and gives ``TimeoutError`` when its own ``uncancel`` brings the count back
to that, not only to 0: so the leftover request does not turn the timeout into a
cancel, and the count is 1 again after it. ``uncancel`` then takes the old request
back, and a second timeout expires the same way at 0.
"""

import asyncio

import truthtrace as truth


async def scoped(me, label):
    try:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(10)
    except TimeoutError:
        truth.event(f"{label}-timed-out-cancelling-{me.cancelling()}")
    except asyncio.CancelledError:
        truth.event(f"{label}-cancelled-cancelling-{me.cancelling()}")


async def main():
    me = asyncio.current_task()
    me.cancel("early")
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError as error:
        truth.event(f"caught-{error.args[0]}-cancelling-{me.cancelling()}")
    await scoped(me, "leftover")
    truth.event(f"uncancel-{me.uncancel()}")
    await scoped(me, "clean")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
