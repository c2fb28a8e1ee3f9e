"""The same two workers, each increment done holding one Lock: no update is lost."""

import asyncio

import truthtrace as truth

counter = 0


async def worker(name, lock):
    global counter
    for _ in range(3):
        await lock.acquire()
        seen = counter
        await asyncio.sleep(0)
        counter = seen + 1
        truth.event(f"{name}-wrote-{counter}")
        lock.release()


async def main():
    lock = asyncio.Lock()
    a = asyncio.create_task(worker("a", lock), name="a")
    b = asyncio.create_task(worker("b", lock), name="b")
    await a
    await b
    truth.event(f"counter-{counter}-of-6")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
