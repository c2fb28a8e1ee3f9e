"""A reader and a writer on one socket: the reader runs first, and the writer runs in
every turn while the socket stays writable.

One connected pair. Main adds a writer, then a reader, to the same socket, and the
peer sends a byte before main suspends: the next select reports the socket readable
and writable in one event. ``_process_events`` queues the reader before the writer
for each event, whichever was added first. The reader reads its byte and removes
itself. The writer writes nothing: the socket stays writable, the level-triggered
selector reports it again at every select, and the writer runs in turns 2, 3 and 4;
its third call removes it and wakes main. (oneloop's fd is re-armed after each event,
which reports a socket that is still writable again.)
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    done = loop.create_future()
    calls = 0

    def on_write():
        nonlocal calls
        calls += 1
        truth.event(f"writable-{calls}")
        if calls == 3:
            loop.remove_writer(ours)
            done.set_result(None)

    def on_read():
        truth.event(f"read-{ours.recv(1).decode()}")
        loop.remove_reader(ours)

    loop.add_writer(ours, on_write)  # the writer first
    loop.add_reader(ours, on_read)
    peer.send(b"x")
    truth.event("written-x")
    await done
    truth.event("main-resumed")
    ours.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
