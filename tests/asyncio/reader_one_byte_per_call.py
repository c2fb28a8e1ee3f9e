"""A reader that reads one byte per call runs again while data is left unread.

asyncio's selector registers level-triggered: as long as the socket holds unread data,
every select reports it, so a reader that takes one byte per call from a socket holding
three bytes runs in three consecutive turns and gets all three. (oneloop's epoll is
edge-triggered; it re-arms a persistent reader after each event to give the same turns.)
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    all_read = loop.create_future()

    def on_data():
        byte = ours.recv(1)
        truth.event(f"read-{byte.decode()}")
        if byte == b"c":
            loop.remove_reader(ours)
            all_read.set_result(None)

    loop.add_reader(ours, on_data)
    peer.send(b"abc")
    truth.event("written-abc")
    await all_read
    truth.event("main-resumed")
    ours.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
