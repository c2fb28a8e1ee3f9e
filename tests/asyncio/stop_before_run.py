"""stop() before run_forever: the loop runs one turn, then returns; a callback that turn
queued runs in the next run_forever. stop() twice in a turn is one stop.
"""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


def first():
    truth.event("first")
    loop.call_soon(second)


def second():
    truth.event("second")
    loop.stop()
    loop.stop()


loop.call_soon(first)
loop.stop()
loop.run_forever()
truth.event("run_forever-returned")
loop.run_forever()
truth.event("run_forever-returned-again")
loop.close()
