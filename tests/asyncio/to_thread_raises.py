"""asyncio.to_thread of a function that raises: the exception comes back as a result does.

The worker's exception completes the concurrent future, whose done callback hands it
to the loop with call_soon_threadsafe; ``_set_state`` sets it on the asyncio future
in turn 2, and main's await raises it in turn 3, the turns of a returned value
(``to_thread_result``). oneloop's job panics, and the await gives
``OffloadError::Panicked`` with the message.
"""

import asyncio

import truthtrace as truth


def fail():
    raise ValueError("boom")


async def main():
    truth.event("main-offloads")
    try:
        await asyncio.to_thread(fail)
    except ValueError as error:
        truth.event(f"main-caught-{error}")


asyncio.run(main())
