"""A reader on a socket whose peer has closed runs in every turn until it is removed.

The peer sends ``x`` and closes before main suspends. The reader's first call reads
the byte; the socket then stays readable, at end of file, and the level-triggered
selector reports it at every select: each later call reads ``b""``. The reader
removes itself at its third end-of-file read, in turn 5. (oneloop's fd is re-armed
after each event, and a socket whose peer has gone reports read-closed again.)
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    done = loop.create_future()
    eofs = 0

    def on_data():
        nonlocal eofs
        data = ours.recv(16)
        if data:
            truth.event(f"read-{data.decode()}")
            return
        eofs += 1
        truth.event(f"eof-{eofs}")
        if eofs == 3:
            loop.remove_reader(ours)
            done.set_result(None)

    loop.add_reader(ours, on_data)
    peer.send(b"x")
    peer.close()
    truth.event("peer-closed")
    await done
    truth.event("main-resumed")
    ours.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
