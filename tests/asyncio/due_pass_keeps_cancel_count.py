"""The due pass takes cancelled timers out of the heap without lowering the count.

Step 5 of ``_run_once`` pops every timer due before now plus the clock's resolution and
appends it to the ready queue, cancelled or not, and marks it unscheduled; only step 1
(the sweep) lowers ``_timer_cancelled_count`` when it pops a cancelled head. So cancelled
timers that come due behind a live one leave the heap with the count unchanged, and the
count then says more than the heap holds, until a rebuild resets it. Here 311 timers are
due at once (deadlines already past, the earliest one live, 150 of the rest cancelled);
one turn later the heap is empty and the count still 150. Then 110 timers an hour away,
one of them cancelled: 150 + 1 > half of 110, so the next sweep rebuilds the heap.
No time is measured: only ``len(loop._scheduled)`` and ``loop._timer_cancelled_count``.
"""

import asyncio

import truthtrace as truth


def counts(loop):
    return f"scheduled={len(loop._scheduled)}-cancelled={loop._timer_cancelled_count}"


async def main():
    loop = asyncio.get_running_loop()
    past = loop.time() - 1
    handles = [loop.call_at(past + n * 1e-9, lambda: None) for n in range(311)]
    for handle in handles[1:151]:
        handle.cancel()
    truth.event(f"due-{counts(loop)}")
    await asyncio.sleep(0)
    truth.event(f"after-due-pass-{counts(loop)}")
    start = loop.time() + 3600
    later = [loop.call_at(start + n, lambda: None) for n in range(110)]
    later[50].cancel()
    truth.event(f"later-{counts(loop)}")
    await asyncio.sleep(0)
    truth.event(f"after-sweep-{counts(loop)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
