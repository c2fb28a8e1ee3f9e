"""What an await costs in CPython: a ready await against a real suspension.

    python3 bench/python/await_cost.py          # 1000000 of each
    python3 bench/python/await_cost.py 200000

Inside one running task: one ready await, three nested ready awaits, and
`await asyncio.sleep(0)`, which goes back to the loop. Prints ns per operation (the CPU time of the main thread,
time.thread_time_ns) and the turns the loop made for it (counted in a
second pass by wrapping BaseEventLoop._run_once). oneloop's counterpart is
`cargo run --release -p oneloop --example turn_cost`.
"""

import asyncio
import asyncio.base_events
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000


async def noop(x):
    return x


async def level3(x):
    return x + 1


async def level2(x):
    return await level3(x) + 1


async def level1(x):
    return await level2(x) + 1


async def one_ready_await(n):
    for i in range(n):
        await noop(i)


async def three_nested(n):
    for i in range(n):
        await level1(i)


async def suspension(n):
    for _ in range(n):
        await asyncio.sleep(0)


def timed(body, n):
    async def main():
        start = time.thread_time_ns()
        await body(n)
        return (time.thread_time_ns() - start) / n

    return asyncio.run(main())


def turns_of(body, n):
    """Turns of one asyncio.run whose main does `body(n)`."""
    original = asyncio.base_events.BaseEventLoop._run_once
    turns = 0

    def counting(self):
        nonlocal turns
        turns += 1
        original(self)

    asyncio.base_events.BaseEventLoop._run_once = counting
    try:
        asyncio.run(body(n))
    finally:
        asyncio.base_events.BaseEventLoop._run_once = original
    return turns


def main():
    version = sys.version.split()[0]
    print(f"CPython {version}, {N} of each, inside one running task")
    print()
    print("| await | ns each | turns of a run doing 1000 |")
    print("|---|---:|---:|")
    rows = [
        ("await noop(), one ready await", one_ready_await),
        ("3 nested ready awaits", three_nested),
        ("await asyncio.sleep(0), back through the loop", suspension),
    ]
    figures = {}
    for title, body in rows:
        ns = timed(body, N)
        figures[body] = ns
        print(f"| {title} | {ns:.1f} | {turns_of(body, 1000)} |")
    ratio = figures[suspension] / figures[three_nested]
    print(f"a suspension costs about {ratio:.0f} times a ready chain")


if __name__ == "__main__":
    main()
