"""A timer that comes due while a turn runs waits for the next turn's due pass.

In turn 1, ``first`` schedules a 0.1 s timer, then blocks 0.3 s: loop.time() has
moved on when it looks again, and the timer is due. ``second``, queued before the
loop ran, still runs in turn 1 and the timer does not: due timers reach the ready
queue only at step 5 of a turn. Turn 2 runs ``soon``, queued by ``first``, then the
timer.
"""

import asyncio
import time

import truthtrace as truth

loop = asyncio.new_event_loop()


def first():
    start = loop.time()
    loop.call_later(0.1, timer)
    time.sleep(0.3)
    truth.event(f"first-time-moved-{loop.time() - start >= 0.3}")
    loop.call_soon(soon)


def second():
    truth.event("second")


def soon():
    truth.event("soon")


def timer():
    truth.event("timer")
    loop.stop()


loop.call_soon(first)
loop.call_soon(second)
loop.run_forever()
loop.close()
