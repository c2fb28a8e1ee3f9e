"""One asyncio.Runner, two runs: each run of an empty main takes two turns.

``Runner.run`` runs main as a task on the runner's loop: main's step, then the
``_run_until_complete_cb`` that stops the loop. A second run on the same runner pays
the same two turns, counted on from the first. Closing the runner then runs
``shutdown_asyncgens`` and ``shutdown_default_executor`` to completion, two turns each.
"""

import asyncio

import truthtrace as truth


async def main():
    truth.event("main-runs")


with asyncio.Runner() as runner:
    runner.run(main())
    truth.event("first-run-returned")
    runner.run(main())
    truth.event("second-run-returned")
