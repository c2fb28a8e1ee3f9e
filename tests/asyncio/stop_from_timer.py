"""stop() from a timer callback: the rest of the turn runs, due timers included.

Before the loop runs, ``first`` is scheduled with call_at a second in the past and
``second`` with call_at at the loop's time now; ``third`` 0.3 s later. Both early
ones are due in the first turn, the past one first. ``first`` stops the loop and
queues ``soon``; ``second`` still runs in that turn, then run_forever returns. The
next run_forever runs ``soon`` in its first turn and ``third`` when it is due.
"""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


def first():
    truth.event("first-stops")
    loop.stop()
    loop.call_soon(soon)


def second():
    truth.event("second")


def soon():
    truth.event("soon")


def third():
    truth.event("third")
    loop.stop()


now = loop.time()
loop.call_at(now, second)
loop.call_at(now - 1, first)
loop.call_at(now + 0.3, third)
loop.run_forever()
truth.event("run_forever-returned")
loop.run_forever()
loop.close()
