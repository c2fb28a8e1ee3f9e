"""A reader replaced or removed after its handle was queued does not run.

Three sockets become readable before one select, in the order a, b, c, so the select
queues their readers in that order. In that turn a's reader replaces b's reader and
removes c's: the handles already queued for b and c are cancelled and do not run. In
the next turn the select still reports b (its byte was never read), and the new reader
runs. c's byte stays unread, with no reader to run.
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    pairs = {name: socket.socketpair() for name in ("a", "b", "c")}
    for ours, _peer in pairs.values():
        ours.setblocking(False)
    done = loop.create_future()

    def on_b_new():
        truth.event(f"new-b-read-{pairs['b'][0].recv(1).decode()}")
        loop.remove_reader(pairs["b"][0])
        done.set_result(None)

    def on_a():
        truth.event(f"a-read-{pairs['a'][0].recv(1).decode()}")
        loop.remove_reader(pairs["a"][0])
        loop.add_reader(pairs["b"][0], on_b_new)
        truth.event(f"removed-c-{loop.remove_reader(pairs['c'][0])}")

    def on_b():
        truth.event("old-b-ran")

    def on_c():
        truth.event("c-ran")

    for name, callback in (("a", on_a), ("b", on_b), ("c", on_c)):
        loop.add_reader(pairs[name][0], callback)
    for name in ("a", "b", "c"):
        pairs[name][1].send(name.encode())
    truth.event("written-a-b-c")
    await done
    truth.event("main-resumed")
    for ours, peer in pairs.values():
        ours.close()
        peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
