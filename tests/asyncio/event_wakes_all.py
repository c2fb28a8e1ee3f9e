"""Three tasks wait on an Event; one set() wakes them all, and all three run in the
next turn. A wait on a set event does not suspend.
"""

import asyncio

import truthtrace as truth


async def waiter(name, event):
    await event.wait()
    truth.event(f"{name}-woke")


async def main():
    event = asyncio.Event()
    tasks = [asyncio.create_task(waiter(n, event), name=n) for n in "abc"]
    await asyncio.sleep(0)
    truth.event("set")
    event.set()
    for task in tasks:
        await task
    await event.wait()
    truth.event("set-event-waited")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
