"""call_later(0) against call_soon: the timer is due at once, yet runs after the callback.

A timer never goes straight to the ready queue: it waits in the heap until step 5 of a
turn (after the select) moves it to the back of ``_ready``. A callback queued with
``call_soon`` is already in ``_ready`` by then, so it runs first, even when the timer
was scheduled first. Scheduled before the loop runs, both run in turn 1; scheduled
from a callback in turn 1, both run in turn 2, in the same order.
"""

import asyncio

import truthtrace as truth


def soon():
    truth.event("soon")


def later():
    truth.event("later")
    asyncio.get_running_loop().stop()


def starter():
    truth.event("starter")
    loop = asyncio.get_running_loop()
    loop.call_later(0, later)
    loop.call_soon(soon)


truth.section("before-the-loop-runs")
loop = asyncio.new_event_loop()
loop.call_later(0, later)  # the timer first ...
loop.call_soon(soon)  # ... the callback second
loop.run_forever()
loop.close()

truth.section("from-a-callback")
loop = asyncio.new_event_loop()
loop.call_soon(starter)
loop.run_forever()
loop.close()
