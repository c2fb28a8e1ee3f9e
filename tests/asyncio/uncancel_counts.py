"""``cancelling()`` counts requests, a second ``cancel`` while one is pending counts
again, and ``uncancel()`` takes one back each time (never below zero).
"""

import asyncio

import truthtrace as truth


async def main():
    me = asyncio.current_task()
    first = me.cancel()
    second = me.cancel()
    truth.event(f"requested-{first}-{second}-cancelling-{me.cancelling()}")
    truth.event(f"uncancel-{me.uncancel()}")
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        truth.event("delivered-at-await")
    truth.event(f"uncancel-{me.uncancel()}-then-{me.uncancel()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
