"""``call_soon``, ``sleep(0)`` and ``call_later(0)`` from one step: the callback, then
the task's next step, then the timer, all in the next turn.

Main schedules ``later`` with ``call_later(0)`` first, queues ``soon`` with
``call_soon``, and awaits ``sleep(0)``, which queues main's next step behind ``soon``.
Turn 2 runs ``soon`` and main (both queued in turn 1), then ``later``, which reached
the ready queue only after the select. Main's step in turn 2 sees ``soon`` ran and
``later`` not yet.
"""

import asyncio

import truthtrace as truth

ran = []


def soon():
    ran.append("soon")


def later():
    ran.append("later")
    truth.event(f"later-after-{'-'.join(ran)}")


async def main():
    loop = asyncio.get_running_loop()
    loop.call_later(0, later)
    loop.call_soon(soon)
    await asyncio.sleep(0)
    truth.event(f"main-after-{'-'.join(ran)}")
    ran.append("main")
    await asyncio.sleep(0)
    truth.event(f"main-again-after-{'-'.join(ran)}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
