"""Cancelling a timer handle twice counts it once, and cancelling one that already ran
counts nothing: the loop's count of cancelled timers (``_timer_cancelled_count``)
moves only for a timer still in the heap, cancelled for the first time.

Timers an hour away stay in the heap; one due at once runs in the next turn, and is
cancelled after it ran. ``cancelled()`` is true for each handle cancelled.
"""

import asyncio

import truthtrace as truth


def counts(loop):
    return f"scheduled={len(loop._scheduled)}-cancelled={loop._timer_cancelled_count}"


def ran():
    truth.event("ran")


async def main():
    loop = asyncio.get_running_loop()
    later = loop.time() + 3600
    first = loop.call_at(later, ran)
    second = loop.call_at(later + 1, ran)
    soon = loop.call_later(0, ran)
    second.cancel()
    second.cancel()
    truth.event(f"cancelled-twice-{counts(loop)}-{second.cancelled()}")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    soon.cancel()
    truth.event(f"cancelled-after-run-{counts(loop)}-{soon.cancelled()}")
    first.cancel()
    truth.event(f"cancelled-head-{counts(loop)}-{first.cancelled()}")
    await asyncio.sleep(0)
    truth.event(f"after-turn-{counts(loop)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
