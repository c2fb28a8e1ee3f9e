"""What starting a loop costs in CPython: asyncio.run in a loop, one Runner reused,
and the same coroutine awaited inside one running loop.

    python3 bench/python/run_cost.py            # 20000 calls each
    python3 bench/python/run_cost.py 5000

Prints ns per call (the CPU time of the main thread, time.thread_time_ns, so that
other processes on a busy machine do not count) and the loop's turns per call. Turns are counted by replacing
BaseEventLoop._run_once with a wrapper that adds one to a counter and calls the
original, in a second pass, so that the counting does not slow the timed one.
oneloop's counterpart is `cargo run --release -p oneloop --example turn_cost`.
"""

import asyncio
import asyncio.base_events
import sys
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000


async def noop():
    return 1


def fresh_runs(runs):
    start = time.thread_time_ns()
    for _ in range(runs):
        asyncio.run(noop())
    return (time.thread_time_ns() - start) / runs


def reused_runner(runs):
    with asyncio.Runner() as runner:
        start = time.thread_time_ns()
        for _ in range(runs):
            runner.run(noop())
        return (time.thread_time_ns() - start) / runs


def inside_one_loop(runs):
    async def main():
        start = time.thread_time_ns()
        for _ in range(runs):
            await noop()
        return (time.thread_time_ns() - start) / runs

    return asyncio.run(main())


def counted(body, runs):
    """The turns `body(runs)` makes, divided by `runs`."""
    original = asyncio.base_events.BaseEventLoop._run_once
    turns = 0

    def counting(self):
        nonlocal turns
        turns += 1
        original(self)

    asyncio.base_events.BaseEventLoop._run_once = counting
    try:
        body(runs)
    finally:
        asyncio.base_events.BaseEventLoop._run_once = original
    return turns / runs


def main():
    version = sys.version.split()[0]
    print(f"CPython {version}, {RUNS} calls each")
    print()
    print("| how main is run | ns per call | turns per call |")
    print("|---|---:|---:|")
    rows = [
        ("asyncio.run(noop()), a fresh loop each time", fresh_runs),
        ("one asyncio.Runner, runner.run(noop()) each time", reused_runner),
        ("await noop() inside one running loop", inside_one_loop),
    ]
    for title, body in rows:
        ns = body(RUNS)
        turns = counted(body, min(RUNS, 1000))
        if body is inside_one_loop:
            # The whole run's turns, spread over its awaits: none of them adds one.
            turns_text = f"{turns * min(RUNS, 1000):.0f} for the whole run"
        else:
            turns_text = f"{turns:.0f}"
        print(f"| {title} | {ns:.0f} | {turns_text} |")


if __name__ == "__main__":
    main()
