"""A task's done callbacks and the tasks awaiting it wake in the order they came.

- ``first`` is added as a done callback before main awaits the child, ``second``
  after main awaits (by the task ``adder``, in turn 2): the child ends in turn 3, and
  in turn 4 ``first`` runs, then main, then ``second``. An awaiting task is one more
  done callback, put on the list when it first waits.
- ``first`` queues ``later`` with ``call_soon``: it runs in turn 5.
- Awaiting a task that is already done costs no turn: main goes on in the same step,
  before a ``call_soon`` it queued just before.
"""

import asyncio

import truthtrace as truth


async def child():
    await asyncio.sleep(0)
    truth.event("child-returns")
    return 7


def later():
    truth.event("later")


def first(task):
    truth.event(f"first-done-{task.done()}")
    asyncio.get_running_loop().call_soon(later)


def second(task):
    truth.event(f"second-done-{task.done()}")


async def adder(task):
    task.add_done_callback(second)
    truth.event("second-added")


async def quick():
    return 8


async def main():
    loop = asyncio.get_running_loop()
    done = loop.create_task(quick(), name="quick")
    task = loop.create_task(child(), name="child")
    task.add_done_callback(first)
    loop.create_task(adder(task), name="adder")
    value = await task
    truth.event(f"main-joined-{value}")
    loop.call_soon(later)
    value = await done
    truth.event(f"main-joined-done-{value}")
    await asyncio.sleep(0)
    await asyncio.sleep(0)


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
