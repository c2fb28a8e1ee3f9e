"""A peer sends ``a\\nb`` and closes its writing half while main waits in ``readline``:
the line, then the cut line at end of file, then the clean end of file.

After the transport's set-up turn, ``send_and_close`` sends and shuts down in turn 4.
The select of turn 5 reports the data: ``_read_ready`` feeds ``a\\nb``, and main has
``a\\n`` in turn 6. Its next ``readline`` waits, as ``b`` has no newline; the select of
turn 6 reports the end of file, which ``_read_ready`` feeds after main's step. Main
resumes in turn 7 with ``b`` (asyncio's ``readline`` returns a cut line), and the third
``readline`` gives ``b""`` at once.

oneloop's reader reads in main's step: ``a\\n`` in the turn of the first select, and the
end of file in the turn of the next, as ``Incomplete`` carrying ``b``; then ``None``.
The Rust side declares the transport's callbacks.
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = truth.tcp_pair()
    reader, writer = await asyncio.open_connection(sock=ours)
    truth.event("opened")

    def send_and_close():
        truth.event("peer-sends-and-closes")
        peer.sendall(b"a\nb")
        peer.shutdown(socket.SHUT_WR)

    loop.call_soon(send_and_close)
    truth.event(f"line-{(await reader.readline()).decode().strip()}")
    truth.event(f"partial-{(await reader.readline()).decode()}")
    line = await reader.readline()
    truth.event("eof" if line == b"" else f"more-{line!r}")
    writer.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
