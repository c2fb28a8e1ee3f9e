"""A callback queued in run_until_complete's last turn waits for the next run.

main queues ``late`` and returns, so turn 2 runs ``late`` and then the stop callback.
``late`` queues ``later``, which is left in the ready queue when the call returns.
The next run_until_complete runs it in its first turn, ahead of its main's first
step, which was queued after it.
"""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


def later():
    truth.event("later")


def late():
    truth.event("late")
    loop.call_soon(later)


async def main(run):
    truth.event(f"main-{run}")
    if run == "first":
        loop.call_soon(late)


loop.run_until_complete(main("first"))
truth.event("first-run-returned")
loop.run_until_complete(main("second"))
loop.close()
