"""``call_later`` and ``call_at`` put their timers in one heap, ordered by deadline.

``call_later(0)`` is scheduled first, with the deadline "now"; ``call_at`` second, with
a deadline already past. Both are due at the next turn's step 5, where the heap gives
them up by deadline: the ``call_at`` timer runs first, though it was scheduled second.
"""

import asyncio

import truthtrace as truth


def timer_callback(name, done):
    def callback():
        truth.event(name)
        if name == "later":
            done.set_result(None)

    callback.__name__ = "timer"
    return callback


async def main():
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.call_later(0, timer_callback("later", done))
    loop.call_at(loop.time() - 1.0, timer_callback("at", done))
    truth.event("scheduled")
    await done
    truth.event("main-resumed")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
