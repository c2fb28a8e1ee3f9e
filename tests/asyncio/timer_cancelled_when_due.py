"""A timer cancelled after it came due, by a timer due in the same turn.

Both are due at once and move to the ready queue in turn 2, first ``first``, then
``second``. ``first`` cancels ``second``: its handle is already queued, so it is
skipped when its place comes, and the count of cancelled timers does not move (the
timer is no longer in the heap).
"""

import asyncio

import truthtrace as truth


def counts(loop):
    return f"scheduled={len(loop._scheduled)}-cancelled={loop._timer_cancelled_count}"


async def main():
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    handles = []

    def first():
        handles[1].cancel()
        truth.event(f"first-cancelled-second-{counts(loop)}-{handles[1].cancelled()}")

    def second():
        truth.event("second")

    def last():
        done.set_result(None)

    handles.append(loop.call_later(0, first))
    handles.append(loop.call_later(0, second))
    loop.call_later(0, last)
    await done
    truth.event(f"main-resumed-{counts(loop)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
