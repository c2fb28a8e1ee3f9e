"""call_soon is first in, first out, and one turn runs everything queued before it."""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()


def first():
    truth.event("first")


def second():
    truth.event("second")


def third():
    truth.event("third")
    loop.stop()


for callback in (first, second, third):
    loop.call_soon(callback)
loop.run_forever()
loop.close()
