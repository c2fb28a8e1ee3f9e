"""call_soon_threadsafe from another thread wakes a loop that waits with nothing to do.

Main hands the worker thread a go-ahead (a ``threading.Event``, the handshake) just
before it awaits a future no one on the loop's thread will complete, so the loop has
nothing ready and sleeps in its select. The worker calls
``loop.call_soon_threadsafe(wake)``: ``wake`` is appended to ``_ready``, and then one
byte is written to the self-pipe, which ends the select. The turn that follows runs
``wake``, which completes the future; main resumes one turn later.

The self-pipe's read side is itself a reader, so the turn also runs
``_read_from_self`` (to drain the byte): after ``wake`` when the byte arrived before
that turn's select, or in the next turn when it arrived after. Which one depends on
thread timing; the Rust side removes ``_read_from_self`` (oneloop's injection path
has no such handle), and what is left does not depend on timing.
"""

import asyncio
import threading

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    go = threading.Event()

    def wake():
        future.set_result("woken")

    def worker():
        go.wait()
        loop.call_soon_threadsafe(wake)

    thread = threading.Thread(target=worker)
    thread.start()
    truth.event("main-waits")
    go.set()  # the handshake: from here on the worker may call
    value = await future
    truth.event(f"main-resumed-{value}")
    thread.join()


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
