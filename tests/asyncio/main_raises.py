"""A main that raises: ``run_until_complete`` runs the turn of its stop callback and
then raises main's exception. Nothing reaches the exception handler: the caller
retrieved the exception.

Main yields once and raises in turn 2; ``_run_until_complete_cb`` stops the loop in
turn 3. oneloop's main panics instead, and ``run_until_complete`` returns
``MainFailed`` with the panic's message.
"""

import asyncio

import truthtrace as truth

loop = asyncio.new_event_loop()
truth.report_exceptions(loop)


async def main():
    await asyncio.sleep(0)
    truth.event("main-raises")
    raise ValueError("oops")


try:
    loop.run_until_complete(main())
except ValueError as error:
    truth.event(f"run_until_complete-raised-{error}")
loop.close()
