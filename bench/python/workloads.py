"""The bench rows in Python: asyncio's own loop, or uvloop's.

    python3 bench/python/workloads.py WORKLOAD            # asyncio
    python3 bench/python/workloads.py WORKLOAD --uvloop   # uvloop (must be importable)

Each run prints one line, `RESULT workload=... runtime=asyncio|uvloop cpu=... wall=...`,
in the unit of the row (see bench/src/workloads.rs, whose sizes these are). CPU is
the process's CPU time (time.process_time_ns, every thread counted); wall is
time.perf_counter_ns. The memory rows count the bytes Python's allocators hold
(tracemalloc, started just before the tasks are made), per task.
"""

import asyncio
import sys
import time
import tracemalloc

SPAWN_TASKS = 100_000
YIELDS = 1_000_000
CHAIN_TASKS = 20
CHAIN_ROUNDS = 10_000
TIMERS = 100_000
TIMER_SPAN_US = 100_000
ECHO_CONNS = 50
ECHO_TRIPS = 2000
ECHO_BYTES = 64
IDLE_MS = 1000
MEM_TASKS = 10_000


def timer_delay_us(i):
    return (i * 7919) % TIMER_SPAN_US


class Meter:
    def __init__(self):
        self.cpu = time.process_time_ns()
        self.wall = time.perf_counter_ns()

    def stop(self, ops, scale):
        """(cpu, wall) per operation, in units of `scale` ns."""
        cpu = time.process_time_ns() - self.cpu
        wall = time.perf_counter_ns() - self.wall
        per = ops * scale
        return cpu / per, wall / per


async def spawn_join():
    async def task(i):
        return i

    meter = Meter()
    tasks = [asyncio.create_task(task(i)) for i in range(SPAWN_TASKS)]
    for t in tasks:
        await t
    return meter.stop(SPAWN_TASKS, 1.0)


async def ping_pong():
    each = YIELDS // 2

    async def yielder():
        for _ in range(each):
            await asyncio.sleep(0)

    meter = Meter()
    a = asyncio.create_task(yielder())
    b = asyncio.create_task(yielder())
    await a
    await b
    return meter.stop(YIELDS, 1.0)


async def wake_chain():
    loop = asyncio.get_running_loop()
    slots = [None] * CHAIN_TASKS

    async def link(i):
        for _ in range(CHAIN_ROUNDS):
            token = loop.create_future()
            slots[i] = token
            await token
            nxt = slots[(i + 1) % CHAIN_TASKS]
            slots[(i + 1) % CHAIN_TASKS] = None
            if nxt is not None:
                nxt.set_result(None)

    meter = Meter()
    tasks = [asyncio.create_task(link(i)) for i in range(CHAIN_TASKS)]
    while any(s is None for s in slots):
        await asyncio.sleep(0)
    first = slots[0]
    slots[0] = None
    first.set_result(None)
    for t in tasks:
        await t
    return meter.stop(CHAIN_TASKS * CHAIN_ROUNDS, 1.0)


async def timers():
    meter = Meter()
    tasks = [
        asyncio.create_task(asyncio.sleep(timer_delay_us(i) / 1e6)) for i in range(TIMERS)
    ]
    for t in tasks:
        await t
    return meter.stop(1, 1e6)


async def tcp_echo():
    async def echo(reader, writer):
        while True:
            data = await reader.read(ECHO_BYTES)
            if not data:
                break
            writer.write(data)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async def client():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        out = b"\x07" * ECHO_BYTES
        for _ in range(ECHO_TRIPS):
            writer.write(out)
            await reader.readexactly(ECHO_BYTES)
        writer.close()
        await writer.wait_closed()

    meter = Meter()
    await asyncio.gather(*(client() for _ in range(ECHO_CONNS)))
    sample = meter.stop(ECHO_CONNS * ECHO_TRIPS, 1e3)
    server.close()
    await server.wait_closed()
    return sample


async def idle():
    meter = Meter()
    await asyncio.sleep(IDLE_MS / 1000)
    return meter.stop(1, 1e6)


async def memory(make):
    polled = 0

    async def task():
        nonlocal polled
        polled += 1
        await make()

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tasks = [asyncio.create_task(task()) for _ in range(MEM_TASKS)]
    while polled < MEM_TASKS:
        await asyncio.sleep(0)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    for t in tasks:
        t.cancel()
    per = (after - before) / MEM_TASKS
    return per, per


async def mem_pending():
    loop = asyncio.get_running_loop()
    return await memory(lambda: loop.create_future())


async def mem_sleeping():
    return await memory(lambda: asyncio.sleep(3600))


WORKLOADS = {
    "spawn_join": spawn_join,
    "yield": ping_pong,
    "wake_chain": wake_chain,
    "timers": timers,
    "tcp_echo": tcp_echo,
    "idle": idle,
    "mem_pending": mem_pending,
    "mem_sleeping": mem_sleeping,
}


def main():
    args = sys.argv[1:]
    use_uvloop = "--uvloop" in args
    args = [a for a in args if a != "--uvloop"]
    if len(args) != 1 or args[0] not in WORKLOADS:
        print(f"usage: workloads.py WORKLOAD [--uvloop]; workloads: {' '.join(WORKLOADS)}",
              file=sys.stderr)
        sys.exit(2)
    name = args[0]
    runtime = "uvloop" if use_uvloop else "asyncio"
    if use_uvloop:
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            cpu, wall = runner.run(WORKLOADS[name]())
    else:
        cpu, wall = asyncio.run(WORKLOADS[name]())
    print(f"RESULT workload={name} runtime={runtime} cpu={cpu:.3f} wall={wall:.3f}")


if __name__ == "__main__":
    main()
