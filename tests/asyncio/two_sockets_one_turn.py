"""Two sockets turn readable before the same select: both readers run in one turn.

Two connected socket pairs; readers for A and B are registered in that order, then
data is written to the peers, both before the loop's next select. The select reports
both, and ``_process_events`` queues the readers in the order epoll reported them:
epoll's ready list keeps the order in which the sockets *became* readable, not the
order of registration. So the section writing B first runs B's reader first. Each
reader reads what is there and removes itself; the second to run wakes main.
"""

import asyncio
import socket

import truthtrace as truth


async def main(write_order):
    loop = asyncio.get_running_loop()
    pairs = {name: socket.socketpair() for name in ("a", "b")}
    for ours, _peer in pairs.values():
        ours.setblocking(False)
    both_read = loop.create_future()
    read = []

    def reader(name):
        ours = pairs[name][0]

        def callback():
            data = ours.recv(64)
            truth.event(f"{name}-read-{data.decode()}")
            loop.remove_reader(ours)
            read.append(name)
            if len(read) == 2:
                both_read.set_result(None)

        callback.__name__ = f"on_{name}"
        return callback

    for name in ("a", "b"):  # registered in the order A, B
        loop.add_reader(pairs[name][0], reader(name))
    for name in write_order:
        pairs[name][1].send(name.encode() * 2)
    truth.event("written-" + "-".join(write_order))
    await both_read
    truth.event("main-resumed")
    for ours, peer in pairs.values():
        ours.close()
        peer.close()


for write_order in (("b", "a"), ("a", "b")):
    truth.section("write-" + "-then-".join(write_order))
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main(write_order))
    loop.close()
