"""A context variable set before create_task is seen by the child; a change the
parent makes after create_task (before the child first runs) is not; what the child
sets is not seen by the parent.
"""

import asyncio
import contextvars

import truthtrace as truth

request = contextvars.ContextVar("request", default="none")


async def child():
    truth.event(f"child-sees-{request.get()}")
    request.set("child")
    await asyncio.sleep(0)
    truth.event(f"child-still-{request.get()}")


async def main():
    request.set("first")
    task = asyncio.create_task(child(), name="child")
    request.set("second")
    await task
    truth.event(f"parent-sees-{request.get()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
