"""``gather(return_exceptions=True)``: results and errors in argument order, whatever
the order the children finish in. Each child yields ``delay`` times (turns, not
timers), so the finishing order cannot depend on the machine's load.
"""

import asyncio

import truthtrace as truth


async def child(delay, fail):
    for _ in range(delay):
        await asyncio.sleep(0)
    if fail:
        raise ValueError(f"fail-{delay}")
    return delay


async def main():
    results = await asyncio.gather(child(3, False), child(1, True), child(2, False),
                                   return_exceptions=True)
    truth.event("main-got-" + "-".join(str(r) for r in results))


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
