"""A child of ``gather`` that ends cancelled, while the awaiting task is not.

The child cancels itself and meets the cancel at its next await; the other child
returns at once. Collecting (``return_exceptions=True``), the cancel takes the child's
place in the list beside the other child's value, and the awaiting task is not
cancelled. Not collecting, the gather raises the child's cancel, with its message; the
awaiting task is still not cancelled and goes on.

The list's entry is shown without its message: 3.11's gather puts a new
``CancelledError`` there, made from the child's future, which a task cancelled through
its coroutine leaves with no message (the entry's message is ``''``). oneloop's entry is
the child's own cancel, with its message.
"""

import asyncio

import truthtrace as truth


async def gives_up():
    asyncio.current_task().cancel("gave up")
    await asyncio.sleep(0)
    truth.event("never")


async def works():
    return 7


def shown(result):
    if isinstance(result, asyncio.CancelledError):
        return "cancelled"
    return str(result)


async def main():
    task = asyncio.current_task()
    results = await asyncio.gather(gives_up(), works(), return_exceptions=True)
    truth.event("collected-" + "-".join(shown(r) for r in results)
                + f"-cancelling-{task.cancelling()}")
    try:
        await asyncio.gather(gives_up(), works())
    except asyncio.CancelledError as error:
        truth.event(f"raised-cancelled({error.args[0]})-cancelling-{task.cancelling()}")
    await asyncio.sleep(0)
    truth.event("main-went-on")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
