"""``wait`` wakes the awaiting task only when its condition holds.

- ``ALL_COMPLETED``: one task returns at once, the other after two yields; the
  awaiting task runs once more, after the second, not after the first.
- ``FIRST_EXCEPTION``: one task returns at once, one fails after two yields, one
  sleeps; the awaiting task runs once more, after the failure, with the sleeper
  pending.
- ``wait`` of no task at all is refused at once (``ValueError``), with no turn.
"""

import asyncio

import truthtrace as truth


async def quick():
    return 1


async def slow(fail):
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    if fail:
        raise ValueError("slow")
    return 2


async def sleeper():
    await asyncio.sleep(10)


async def main():
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(quick(), name="quick"), loop.create_task(slow(False), name="slow")]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.ALL_COMPLETED)
    truth.event(f"all-done-{len(done)}-pending-{len(pending)}")

    tasks = [
        loop.create_task(quick(), name="quick"),
        loop.create_task(slow(True), name="slow"),
        loop.create_task(sleeper(), name="sleeper"),
    ]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    truth.event(f"first-exception-done-{len(done)}-pending-{len(pending)}")
    tasks[1].exception()
    tasks[2].cancel()
    try:
        await tasks[2]
    except asyncio.CancelledError:
        truth.event("sleeper-cancelled")
    try:
        await asyncio.wait([])
    except ValueError:
        truth.event("wait-of-nothing-refused")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
