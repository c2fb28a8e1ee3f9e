"""Two tasks queue for a held Lock. The first is cancelled while it waits, then main
releases: the release skips the cancelled waiter, which leaves the queue when it runs
and wakes the next one. In a second round the first waiter is cancelled just after
the release woke it: it passes the wake on instead of swallowing it.
"""

import asyncio

import truthtrace as truth


async def waiter(name, lock):
    try:
        await lock.acquire()
    except asyncio.CancelledError:
        truth.event(f"{name}-cancelled")
        raise
    truth.event(f"{name}-acquired")
    lock.release()


async def round_of(lock, first, second, cancel_after_release):
    await lock.acquire()
    a = asyncio.create_task(waiter(first, lock), name=first)
    b = asyncio.create_task(waiter(second, lock), name=second)
    await asyncio.sleep(0)
    if cancel_after_release:
        lock.release()
        a.cancel()
    else:
        a.cancel()
        lock.release()
    truth.event(f"released-{first}-{second}")
    await b
    try:
        await a
    except asyncio.CancelledError:
        pass
    truth.event(f"round-done-locked-{lock.locked()}")


async def main():
    lock = asyncio.Lock()
    await round_of(lock, "a", "b", cancel_after_release=False)
    await round_of(lock, "c", "d", cancel_after_release=True)


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
