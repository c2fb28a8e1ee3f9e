"""A callback that raises is reported, and the loop goes on with the next handle."""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()
truth.report_exceptions(loop)


def bad():
    truth.event("bad")
    loop.call_soon(next_turn)
    raise RuntimeError("oops")


def good():
    truth.event("good")


def next_turn():
    truth.event("next-turn")
    loop.stop()


loop.call_soon(bad)
loop.call_soon(good)
loop.run_forever()
loop.close()
