"""A task waiting in a stream's ``readline`` for a line written a turn later, then a
write and a ``drain`` that does not wait.

``open_connection(sock=...)`` builds a transport: ``connection_made``, ``_add_reader``
and the waiter's ``_set_result_unless_cancelled`` run in turn 2, and main resumes in
turn 3. Its ``readline`` finds the buffer empty and waits. ``send_ping`` sends a line in
turn 4; the select of turn 5 reports the socket, the transport's reader callback
``_read_ready`` reads the line and feeds the StreamReader, which wakes main for turn 6.
There the write goes to the kernel at once, and ``drain`` returns without suspending,
as the writer is not paused. ``close`` closes the transport in a callback,
``_call_connection_lost``, in the last turn.

oneloop's StreamReader reads in main's own step, woken by the readiness event, and
wrapping or dropping the socket takes no turn: the Rust side declares that difference.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = truth.tcp_pair()
    reader, writer = await asyncio.open_connection(sock=ours)
    truth.event("opened")

    def send_ping():
        truth.event("peer-sends-ping")
        peer.sendall(b"ping\n")

    loop.call_soon(send_ping)
    line = await reader.readline()
    truth.event(f"got-{line.decode().strip()}")
    writer.write(b"pong\n")
    await writer.drain()
    truth.event("drained")
    truth.event(f"peer-got-{peer.recv(16).decode().strip()}")
    writer.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
