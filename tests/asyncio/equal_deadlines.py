"""Five timers share one deadline: all run in one turn, in the order the heap gives.

``TimerHandle`` compares by ``when`` alone and ``heapq`` is not a stable sort, so
timers with equal deadlines do not come out in scheduling order: for five, CPython
runs them 0 2 4 1 3. (oneloop adds a sequence number to the key and runs them 0 1 2
3 4; the Rust side declares that difference.) The deadline is ``loop.time()`` itself,
so no real time has to pass: the timers are due at the next turn's step 5.
"""

import asyncio

import truthtrace as truth

TIES = 5


async def main():
    loop = asyncio.get_running_loop()
    all_ran = loop.create_future()
    ran = 0

    def tie(number):
        def callback():
            nonlocal ran
            truth.event(f"tie-{number}")
            ran += 1
            if ran == TIES:
                all_ran.set_result(None)

        callback.__name__ = f"tie_{number}"
        return callback

    when = loop.time()
    for number in range(TIES):
        loop.call_at(when, tie(number))
    truth.event("scheduled")
    await all_ran
    truth.event("main-resumed")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
