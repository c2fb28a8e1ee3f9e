"""Debug mode reports each handle that held the loop at least
``slow_callback_duration``, whatever kind of handle it was, right after it ran.

The threshold is 0.6 s. Main's first step queues ``block_cb`` (``call_soon``),
``quick`` and a ``call_later(0)`` timer ``alarm``, then blocks 0.65 s itself. The
blocking ones are ``block_cb``, ``alarm`` and that step of main: each is reported as
soon as it returns, before the next handle runs, as ``<Task …>``, ``<Handle …>`` or
``<TimerHandle …>``. ``quick``, and main's second step, are not. The busy waits read
the loop's clock, so each blocking handle took at least 0.65 s; a quick handle would
need a stall of the whole machine of 0.6 s to be reported.

asyncio logs the line to its logger as a warning; the script's log handler records it
as ``slow-KIND-NAME`` (the kind as the line's angle brackets begin). oneloop reports
it to the loop's exception handler, which the Rust side records the same way.
"""

import asyncio
import logging
import time

import truthtrace as truth

THRESHOLD = 0.6
BLOCK = 0.65

loop = asyncio.new_event_loop()
loop.set_debug(True)
loop.slow_callback_duration = THRESHOLD


class RecordSlow(logging.Handler):
    def emit(self, record):
        if not record.getMessage().startswith("Executing "):
            return  # debug mode's other lines (a slow select, ...)
        handle = loop._current_handle  # still set while _run_once logs the line
        owner = getattr(handle._callback, "__self__", None)
        kind = "Task" if isinstance(owner, asyncio.Task) else type(handle).__name__
        truth.event(f"slow-{kind}-{truth.handle_name(handle)}")


logger = logging.getLogger("asyncio")
logger.addHandler(RecordSlow())
logger.propagate = False


def busy(seconds):
    start = loop.time()
    while loop.time() - start < seconds:
        pass


def block_cb():
    truth.event("block_cb")
    busy(BLOCK)


def quick():
    truth.event("quick")


def alarm():
    truth.event("alarm")
    busy(BLOCK)


async def main():
    loop.call_soon(block_cb)
    loop.call_soon(quick)
    loop.call_later(0, alarm)
    busy(BLOCK)
    await asyncio.sleep(0)
    truth.event("main-done")


loop.run_until_complete(main())
loop.close()
