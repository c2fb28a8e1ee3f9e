"""stop() from a callback ends run_forever after the current turn; the rest waits."""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


def stopper():
    truth.event("stop")
    loop.stop()
    loop.call_soon(later)


def same_turn():
    truth.event("same-turn")


def later():
    truth.event("later")
    loop.stop()


loop.call_soon(stopper)
loop.call_soon(same_turn)
loop.run_forever()
truth.event("run_forever-returned")
loop.run_forever()
loop.close()
