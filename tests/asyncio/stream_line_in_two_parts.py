"""A line that arrives in two parts, 0.5 s apart: ``readline`` wakes for the first part,
finds no newline, and waits again.

After the transport's set-up turn, ``first_half`` sends ``pi`` and sets a 0.5 s timer (a wide margin: a loaded
machine that stalled past it would read both parts at once).
``_read_ready`` feeds ``pi`` in turn 5 and main wakes in turn 6 and waits again; the
timer's ``second_half`` sends ``ng\\n`` in turn 7, ``_read_ready`` feeds it in turn 8, and
main has its line in turn 9. The Rust side declares the transport's callbacks.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = truth.tcp_pair()
    reader, writer = await asyncio.open_connection(sock=ours)
    truth.event("opened")

    def first_half():
        truth.event("peer-sends-pi")
        peer.sendall(b"pi")
        loop.call_later(0.5, second_half)

    def second_half():
        truth.event("peer-sends-ng")
        peer.sendall(b"ng\n")

    loop.call_soon(first_half)
    truth.event(f"got-{(await reader.readline()).decode().strip()}")
    writer.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
