"""stop() before run_until_complete: main ends in the one turn, its stop callback
is left queued, and it stops the next run_forever after that run's first turn.

With the loop stopping, run_until_complete runs one turn. main finishes in it, so
the call returns main's value; the done callback main's end queued,
``_run_until_complete_cb``, is already in the ready queue, where removing it from
the task does not reach. The next run_forever runs it in its first turn, beside
``a``, and returns after that turn; ``b``, queued by ``a``, runs in the run after.
"""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


async def main():
    truth.event("main")
    return 7


def a():
    truth.event("a")
    loop.call_soon(b)


def b():
    truth.event("b")
    loop.stop()


loop.stop()
value = loop.run_until_complete(main())
truth.event(f"run_until_complete-returned-{value}")
loop.call_soon(a)
loop.run_forever()
truth.event("run_forever-returned")
loop.run_forever()
loop.close()
