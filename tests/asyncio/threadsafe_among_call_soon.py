"""Where a thread's ``call_soon_threadsafe`` lands among the loop's own handles.

Main queues ``local_0`` with ``call_soon`` and a timer ``timer`` with ``call_later(0)``,
then starts a thread that calls ``call_soon_threadsafe`` twice (``from_thread_0``,
``from_thread_1``) and joins it, and then queues ``local_1``. Last, main calls
``call_soon_threadsafe`` itself, on the loop's own thread (``from_thread_2``). All of
it happens in main's step of turn 1, and the thread has finished before ``local_1`` is
queued, so the order of the calls is fixed.

asyncio's ``call_soon_threadsafe`` appends to ``_ready`` at once, like ``call_soon``:
turn 2 runs ``local_0 from_thread_0 from_thread_1 local_1 from_thread_2``, then the
timer (and the self-pipe's ``_read_from_self``). oneloop's thread-safe calls, the
loop thread's own included, wait in the inbox until the loop parks, and the park
queues them after its I/O and its due timers: they run last in turn 2. The Rust side
declares that difference.
"""

import asyncio
import threading

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def local_0():
        truth.event("local_0")

    def local_1():
        truth.event("local_1")

    def timer():
        truth.event("timer")
        done.set_result(None)

    loop.call_soon(local_0)
    loop.call_later(0, timer)

    # The thread's callbacks record nothing (their handle's line is enough): on the
    # Rust side, a callback made on another thread cannot hold the recorder.
    def from_thread_0():
        pass

    def from_thread_1():
        pass

    def from_thread_2():
        pass

    def worker():
        loop.call_soon_threadsafe(from_thread_0)
        loop.call_soon_threadsafe(from_thread_1)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    truth.event("thread-joined")
    loop.call_soon(local_1)
    loop.call_soon_threadsafe(from_thread_2)  # on the loop's own thread
    await done
    truth.event("main-resumed")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
