"""A ``Condition`` waiter that is cancelled takes the lock back before it raises.

- ``waiting``: cancelled while it waits for a notify; the cancel comes out with its
  message, once the lock is held again.
- ``reacquiring``: notified, then cancelled while it waits for the lock; 3.11's
  ``wait`` raises a fresh ``CancelledError`` after it took the lock back, with no
  message.
- ``twice``: cancelled while it waits, and again while it waits for the lock; the
  fresh ``CancelledError`` again, with no message.
"""

import asyncio

import truthtrace as truth


async def waiter(name, cond):
    async with cond:
        try:
            await cond.wait()
            truth.event(f"{name}-notified")
        except asyncio.CancelledError as error:
            message = error.args[0] if error.args else "None"
            truth.event(f"{name}-cancelled-{message}-locked-{cond.locked()}")
            raise


async def main():
    for name in ["waiting", "reacquiring", "twice"]:
        cond = asyncio.Condition()
        task = asyncio.create_task(waiter(name, cond), name=name)
        await asyncio.sleep(0)
        if name == "waiting":
            task.cancel("first")
        else:
            async with cond:
                if name == "reacquiring":
                    cond.notify()
                    await asyncio.sleep(0)
                    task.cancel("first")
                else:
                    task.cancel("first")
                    await asyncio.sleep(0)
                    await asyncio.sleep(0)
                    task.cancel("second")
                await asyncio.sleep(0)
        try:
            await task
        except asyncio.CancelledError as error:
            message = error.args[0] if error.args else "None"
            truth.event(f"{name}-joined-{message}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
