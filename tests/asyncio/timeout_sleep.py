"""A 10 s sleep under a 0.01 s timeout (``asyncio.timeout``, new in 3.11).

The timeout is a timer (``Timeout._on_timeout``) that cancels the task; the task's next
step gets ``CancelledError`` out of the sleep, whose ``finally`` cancels the 10 s
timer, and ``__aexit__`` turns the cancellation into ``TimeoutError``. The deadline is
real time (0.01 s), but only turn numbers and orders are recorded.

``asyncio.timeout`` runs the coroutine in the calling task, as oneloop's ``timeout``
does; ``asyncio.wait_for`` (3.11) would wrap it in a task of its own, with the extra
turns of starting, cancelling and joining that task.
"""

import asyncio

import truthtrace as truth


def counts(loop):
    return f"scheduled={len(loop._scheduled)}-cancelled={loop._timer_cancelled_count}"


async def nap():
    try:
        await asyncio.sleep(10)
    finally:
        truth.event("nap-ends")


async def main():
    loop = asyncio.get_running_loop()
    truth.event("main-starts")
    try:
        async with asyncio.timeout(0.01):
            await nap()
        truth.event("nap-finished")
    except TimeoutError:
        truth.event(f"main-timed-out-{counts(loop)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
