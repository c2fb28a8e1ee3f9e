"""main puts two items and joins the queue; a worker gets each, yields once, and
marks it done. join returns in the turn after the last task_done.
"""

import asyncio

import truthtrace as truth


async def worker(queue):
    for _ in range(2):
        item = await queue.get()
        await asyncio.sleep(0)
        truth.event(f"done-{item}")
        queue.task_done()


async def main():
    queue = asyncio.Queue()
    queue.put_nowait("x")
    queue.put_nowait("y")
    w = asyncio.create_task(worker(queue), name="worker")
    await queue.join()
    truth.event("joined")
    try:
        queue.task_done()
    except ValueError:
        truth.event("task-done-too-often")
    await w


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
