"""The select timeout when the earliest timer is cancelled: the next live one counts.

main schedules ``early`` 0.2 s away and ``late`` 1.6 s away, cancels ``early`` and
waits for a future that ``late`` completes. At the start of the next turn the sweep
pops the cancelled head, so the select waits for ``late``, not for ``early``'s
deadline: one turn with a long timeout, then ``late`` in that same turn. The script
wraps the selector's ``select`` to classify each timeout: zero, none, long (over
0.9 s: a margin of 0.7 s either way, for a loaded machine) or short. No time is
printed.
"""

import asyncio

import truthtrace as truth

timeouts = []


def classify(timeout):
    if timeout is None:
        return "none"
    if timeout == 0:
        return "zero"
    return "long" if timeout > 0.9 else "short"


async def main():
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def late():
        done.set_result(None)

    early = loop.call_later(0.2, lambda: None)
    loop.call_later(1.6, late)
    early.cancel()
    await done
    truth.event("main-resumed")


loop = asyncio.new_event_loop()
select = loop._selector.select


def recording_select(timeout=None):
    timeouts.append(classify(timeout))
    return select(timeout)


loop._selector.select = recording_select
loop.run_until_complete(main())
truth.event("timeouts-" + "-".join(timeouts))
loop.close()
