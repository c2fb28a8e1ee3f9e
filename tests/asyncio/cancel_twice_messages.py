"""Two ``cancel`` calls with different messages before the task's next step: both
count, and which message the task sees depends on where it waits.

- A task waiting on a future (a sleep): the first request cancelled that future with
  the first message, so the first message is the one thrown in.
- A task at a bare yield (``sleep(0)``), or not started yet: no future took the first
  request, and the last message wins. A task cancelled before its first step ends
  cancelled without running.
- A task that cancels itself and then awaits a sleep: its step ends by cancelling that
  sleep with the message, so a later request from outside does not replace it. The
  task's next step is queued at the end of the step, behind a callback the step
  queued after its ``cancel``.

Each task that runs catches the cancel, awaits once more to show that the two requests were
delivered once, and returns; ``cancel`` of the finished task returns False.
"""

import asyncio

import truthtrace as truth


async def caught(name, wait):
    try:
        await wait()
        truth.event(f"{name}-not-cancelled")
    except asyncio.CancelledError as error:
        me = asyncio.current_task()
        truth.event(f"{name}-saw-{error.args[0]}-cancelling-{me.cancelling()}")
    await asyncio.sleep(0)
    truth.event(f"{name}-carried-on")


async def sleeping():
    await asyncio.sleep(10)


async def bare():
    await asyncio.sleep(0)


def soon():
    truth.event("soon")


async def self_cancelled():
    asyncio.current_task().cancel("own")
    asyncio.get_running_loop().call_soon(soon)
    await asyncio.sleep(10)


async def main():
    for name, wait, yields in [
        ("sleeper", sleeping, 1),
        ("yielder", bare, 1),
        ("unstarted", sleeping, 0),
        ("itself", self_cancelled, 1),
    ]:
        task = asyncio.create_task(caught(name, wait), name=name)
        for _ in range(yields):
            await asyncio.sleep(0)
        if name == "itself":
            task.cancel("outer")
        else:
            task.cancel("first")
            task.cancel("second")
        try:
            await task
        except asyncio.CancelledError as error:
            truth.event(f"{name}-ended-cancelled-{error.args[0]}")
        again = task.cancel("late")
        truth.event(f"{name}-done-cancel-{again}-cancelling-{task.cancelling()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
