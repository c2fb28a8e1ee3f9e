"""``asyncio.timeout(0)``: the deadline is already past when the scope is entered.

The scope expires through ``call_soon``, so its cancel comes in the next turn. A body
that yields once is cancelled at that yield, in turn 2, and never goes on; a body that
waits on a long sleep sees the cancel a turn after the expiry, in turn 4.
"""

import asyncio

import truthtrace as truth


async def main():
    try:
        async with asyncio.timeout(0):
            truth.event("yielding-body-starts")
            await asyncio.sleep(0)
            truth.event("yielding-body-went-on")
    except TimeoutError:
        truth.event("yielding-body-timed-out")
    try:
        async with asyncio.timeout(0):
            truth.event("waiting-body-starts")
            await asyncio.sleep(10)
    except TimeoutError:
        truth.event("waiting-body-timed-out")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
