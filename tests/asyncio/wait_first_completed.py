"""``wait(FIRST_COMPLETED)``: returns when the first task is done, with the others
pending and still running.
"""

import asyncio

import truthtrace as truth


async def child(delay):
    await asyncio.sleep(delay / 10)
    return delay


async def main():
    tasks = [asyncio.create_task(child(d), name=f"c{d}") for d in (3, 1, 2)]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    truth.event(f"main-done-{len(done)}-pending-{len(pending)}-first-{done.pop().result()}")
    for task in tasks:
        task.cancel()  # in list order; a done task refuses
    await asyncio.wait(tasks)
    truth.event("main-cleaned-up")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
