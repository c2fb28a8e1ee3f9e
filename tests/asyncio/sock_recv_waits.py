"""A task waiting in ``sock_recv`` on an empty socket, woken by data written in a
later turn.

Main awaits ``loop.sock_recv`` on a socket with nothing in it: the first ``recv``
would block, so ``sock_recv`` registers a reader, ``_sock_recv``, and awaits a future.
``writer``, queued by main's step, sends a byte in turn 2. The select of turn 3
reports the socket, and ``_sock_recv`` reads the byte and completes the future; main
resumes in turn 4, behind the future's other done callback, a ``partial`` of
``_sock_read_done`` that removes the reader.

oneloop's readiness future does no I/O: the event wakes main in turn 3, and main's
step reads the byte itself. The Rust side declares that difference.
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = socket.socketpair()
    ours.setblocking(False)

    def writer():
        truth.event("writes-x")
        peer.send(b"x")

    loop.call_soon(writer)
    data = await loop.sock_recv(ours, 16)
    truth.event(f"main-got-{data.decode()}")
    ours.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
