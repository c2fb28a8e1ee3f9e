"""Two nested ``asyncio.timeout`` scopes with one deadline: both fire in one turn and
cancel the task twice. The inner scope takes its request back but one is left, so it
lets the cancel through; the outer one takes the last request back and raises
``TimeoutError``. The same whichever scope armed its timer first.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    for order in ["outer-armed-first", "inner-armed-first"]:
        when = loop.time() + 0.1
        outer = asyncio.timeout_at(when if order == "outer-armed-first" else None)
        inner = asyncio.timeout_at(when)
        try:
            async with outer:
                try:
                    async with inner:
                        if order == "inner-armed-first":
                            outer.reschedule(when)
                        await asyncio.sleep(10)
                except TimeoutError:
                    truth.event(f"{order}-inner-timed-out")
                except asyncio.CancelledError:
                    truth.event(f"{order}-inner-let-it-through-cancelling-{me.cancelling()}")
                    raise
        except TimeoutError:
            truth.event(
                f"{order}-outer-timed-out-cancelling-{me.cancelling()}"
                f"-expired-{outer.expired()}-{inner.expired()}"
            )


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
