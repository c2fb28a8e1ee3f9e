"""``wait`` and ``as_completed`` on tasks that are already done still suspend the
awaiting task once.

``quick`` returns in turn 2, and main sees it done in turn 3. ``wait([quick])`` hangs
``_on_completion`` on the task; the task is done, so the callback is queued at once
and runs in turn 4, completing ``wait``'s waiter; main resumes in turn 5.
``as_completed([quick])`` does the same through its queue: the first result comes
after the callback's turn, in turn 7.

The Rust side removes ``_on_completion`` and the turns it leaves empty (the declared
difference of ``wait`` and ``as_completed``): main resumes one turn after it awaited,
each time.
"""

import asyncio

import truthtrace as truth


async def quick():
    return 1


async def main():
    t = asyncio.create_task(quick(), name="quick")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    truth.event(f"quick-done-{t.done()}")
    done, pending = await asyncio.wait([t])
    truth.event(f"wait-returned-{len(done)}-{len(pending)}")
    for next_done in asyncio.as_completed([t]):
        truth.event(f"as-completed-{await next_done}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
