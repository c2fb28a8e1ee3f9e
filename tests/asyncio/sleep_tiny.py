"""sleep of one microsecond is not a yield: it makes a timer, which the next turn moves
to the ready queue (its ``_set_result_unless_cancelled`` runs there), and the task
resumes a turn later. Two turns per call, where ``sleep(0)`` takes one.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    for step in range(2):
        await asyncio.sleep(1e-6)
        truth.event(f"main-{step}-timers-{len(loop._scheduled)}")
    truth.event("main-done")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
