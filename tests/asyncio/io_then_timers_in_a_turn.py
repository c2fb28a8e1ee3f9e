"""One turn's handles in the order the loop queues them: what was queued with
``call_soon`` first, then the I/O callbacks of the select, then the timers that
came due.

Main's step queues ``soon``, schedules ``timer`` with ``call_later(0)`` (scheduled
first of the three), registers ``on_read`` and makes its socket readable, then
awaits. Turn 2 runs ``soon``, then ``on_read`` (``_process_events`` queues it after
the select), then ``timer`` (moved to the ready queue after the I/O). oneloop's
timer layer wraps its I/O layer, so the I/O driver's events are queued first.
"""

import asyncio
import socket

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    done = loop.create_future()

    def timer():
        truth.event("timer")
        done.set_result(None)

    def soon():
        truth.event("soon")

    def on_read():
        truth.event(f"read-{ours.recv(1).decode()}")
        loop.remove_reader(ours)

    loop.call_later(0, timer)
    loop.call_soon(soon)
    loop.add_reader(ours, on_read)
    peer.send(b"x")
    truth.event("queued-all-three")
    await done
    truth.event("main-resumed")
    ours.close()
    peer.close()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
