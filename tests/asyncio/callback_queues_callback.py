"""A callback queued by a running callback waits for the next turn, behind the batch."""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


def a():
    truth.event("a")
    loop.call_soon(c)


def b():
    truth.event("b")
    loop.call_soon(d)


def c():
    truth.event("c")
    loop.stop()


def d():
    truth.event("d")


loop.call_soon(a)
loop.call_soon(b)
loop.run_forever()
loop.close()
