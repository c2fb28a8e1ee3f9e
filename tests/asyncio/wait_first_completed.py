"""``wait(FIRST_COMPLETED)``: returns when the first task is done, with the others
pending and still running. The first child is done after one yield; the others sleep
5 and 9 s, far beyond the run, so no two deadlines race.
"""

import asyncio

import truthtrace as truth


async def child(delay):
    if delay == 1:
        await asyncio.sleep(0)  # done in its second step
    else:
        await asyncio.sleep(delay)  # seconds away: cancelled long before
    return delay


async def main():
    tasks = [asyncio.create_task(child(d), name=f"c{d}") for d in (9, 1, 5)]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    truth.event(f"main-done-{len(done)}-pending-{len(pending)}-first-{done.pop().result()}")
    for task in tasks:
        task.cancel()  # in list order; a done task refuses
    await asyncio.wait(tasks)
    truth.event("main-cleaned-up")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
