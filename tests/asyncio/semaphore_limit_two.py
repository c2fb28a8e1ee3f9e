"""Four tasks share a Semaphore(2): two work at once, each for two bare yields; the
others start as units come back, first come first served.
"""

import asyncio

import truthtrace as truth


async def worker(name, sem):
    await sem.acquire()
    truth.event(f"{name}-in")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    truth.event(f"{name}-out")
    sem.release()


async def main():
    sem = asyncio.Semaphore(2)
    tasks = [asyncio.create_task(worker(n, sem), name=n) for n in "abcd"]
    for task in tasks:
        await task
    truth.event(f"value-{sem._value}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
