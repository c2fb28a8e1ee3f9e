"""The sweep's edges: a rebuild needs more than 100 timers and more than half cancelled.

At the start of each turn ``_run_once`` rebuilds the heap without its cancelled timers
if ``len(_scheduled) > 100`` and ``_timer_cancelled_count / len(_scheduled) > 0.5``;
otherwise it pops cancelled timers from the head only. Each section schedules N timers
an hour away, each one second after the last, cancels K of them (never the first, so
the head is live and popping from the head removes nothing), records the heap's counts,
yields once so that a turn begins, and records them again. No time is measured: only
``len(loop._scheduled)`` and ``loop._timer_cancelled_count``.
"""

import asyncio

import truthtrace as truth


def counts(loop):
    return f"scheduled={len(loop._scheduled)}-cancelled={loop._timer_cancelled_count}"


async def main(timers, cancelled):
    loop = asyncio.get_running_loop()
    start = loop.time() + 3600
    handles = [loop.call_at(start + n, lambda: None) for n in range(timers)]
    for handle in handles[1 : cancelled + 1]:
        handle.cancel()
    truth.event(f"before-{counts(loop)}")
    await asyncio.sleep(0)
    truth.event(f"after-{counts(loop)}")


for timers, cancelled in ((100, 51), (101, 51), (102, 51), (102, 52)):
    truth.section(f"{timers}-timers-{cancelled}-cancelled")
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main(timers, cancelled))
    loop.close()
