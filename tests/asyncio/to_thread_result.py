"""asyncio.to_thread: a function runs in the default executor, and main awaits it.

``to_thread`` is ``loop.run_in_executor(None, f)``, which wraps the executor's
``concurrent.futures.Future`` in an asyncio future (``futures.wrap_future``). When
the worker finishes, the concurrent future's done callback calls
``loop.call_soon_threadsafe(_set_state, ...)``: ``_set_state`` runs on the loop's
thread and completes the asyncio future, and main resumes a turn later. Completing
that future also runs ``_call_check_cancel``, the chain's callback that would cancel
the concurrent future if the asyncio one had been cancelled. The self-pipe adds
``_read_from_self``, in the same turn as ``_set_state`` or the next one, depending on
thread timing. Then ``asyncio.run`` shuts the default executor down: a task that
starts a thread to join the pool's threads, and resumes when that thread calls
``call_soon_threadsafe(future.set_result, None)``.
"""

import asyncio

import truthtrace as truth


def work():
    return sum(range(101))


async def main():
    truth.event("main-offloads")
    value = await asyncio.to_thread(work)
    truth.event(f"main-resumed-{value}")


asyncio.run(main())
