"""A producer puts three items into a Queue(maxsize=1); a consumer gets them. Each
put and get finishes in a turn the trace records.
"""

import asyncio

import truthtrace as truth


async def producer(queue):
    for item in range(3):
        await queue.put(item)
        truth.event(f"put-{item}")


async def consumer(queue):
    for _ in range(3):
        item = await queue.get()
        truth.event(f"got-{item}")


async def main():
    queue = asyncio.Queue(maxsize=1)
    p = asyncio.create_task(producer(queue), name="producer")
    c = asyncio.create_task(consumer(queue), name="consumer")
    await p
    await c


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
