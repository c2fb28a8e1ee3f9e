"""A timeout's deadline and the body's result in one turn.

The future the body awaits is set by a timer due at the scope's own deadline, and
scheduled first: in turn 2 the setter runs, then ``_on_timeout``. The task has not run
yet; its cancel comes first at its next step, so the scope raises ``TimeoutError`` in
turn 3, though the future holds its value.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    when = loop.time() + 0.01
    future = loop.create_future()

    def setter():
        truth.event("setter")
        future.set_result(5)

    loop.call_at(when, setter)
    try:
        async with asyncio.timeout_at(when):
            value = await future
            truth.event(f"body-got-{value}")
    except TimeoutError:
        truth.event(f"timed-out-future-done-{future.done()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
