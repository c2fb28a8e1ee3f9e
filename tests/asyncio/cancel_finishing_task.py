"""Cancels that come late, and one that is ignored.

- A task woken for its last step and cancelled before that step runs gets the cancel
  at the await it resumes from: it ends cancelled, its last line never runs.
- ``cancel()`` of a finished task is refused (``False``) and changes no count: a task
  that ended cancelled keeps its one request, one that returned keeps none.
- ``wait_for`` on a task that swallows the cancel its deadline sends: the task goes on
  to return a value, and ``wait_for`` returns that value, not a timeout.
"""

import asyncio

import truthtrace as truth


async def finisher():
    await asyncio.sleep(0)
    truth.event("finisher-last-line")
    return 1


async def ignorer():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        truth.event("ignorer-swallows")
    await asyncio.sleep(0)
    return "kept"


async def main():
    loop = asyncio.get_running_loop()
    late = loop.create_task(finisher(), name="finisher")
    await asyncio.sleep(0)
    truth.event(f"cancel-before-last-step-{late.cancel()}")
    try:
        await late
    except asyncio.CancelledError:
        truth.event(f"finisher-cancelled-{late.cancelled()}")
    truth.event(f"cancel-cancelled-{late.cancel()}-cancelling-{late.cancelling()}")
    done = loop.create_task(asyncio.sleep(0), name="done")
    await done
    truth.event(f"cancel-returned-{done.cancel()}-cancelling-{done.cancelling()}")

    stubborn = loop.create_task(ignorer(), name="ignorer")
    try:
        value = await asyncio.wait_for(stubborn, 0.01)
        truth.event(f"wait_for-returned-{value}-cancelling-{stubborn.cancelling()}")
    except TimeoutError:
        truth.event("wait_for-timed-out")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
