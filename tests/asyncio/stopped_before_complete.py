"""``stop()`` while ``run_until_complete``'s future is pending: the call raises, and the
task lives on.

Main's first step queues ``stopper`` and awaits a future no one has set. ``stopper``
stops the loop in turn 1, so ``run_until_complete`` returns with main unfinished and
raises ``RuntimeError`` ("Event loop stopped before Future completed."). Main is still
a pending task: the script queues ``setter`` and calls ``run_forever``. Turn 2 sets
the future, main resumes in turn 3 and stops the loop itself. Its end queues no
``_run_until_complete_cb``: ``run_until_complete`` took its done callback back when it
returned.
"""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()
future = loop.create_future()


def stopper():
    truth.event("stop")
    loop.stop()


def setter():
    truth.event("set")
    future.set_result(7)


async def main():
    truth.event("main-waits")
    loop.call_soon(stopper)
    value = await future
    truth.event(f"main-got-{value}")
    loop.stop()


try:
    loop.run_until_complete(main())
except RuntimeError as error:
    # oneloop's LoopError::StoppedBeforeComplete stands for exactly this message.
    if str(error) == "Event loop stopped before Future completed.":
        truth.event("raised-stopped-before-complete")
    else:
        truth.event(f"raised-{error}")
loop.call_soon(setter)
loop.run_forever()
truth.event("run_forever-returned")
loop.close()
