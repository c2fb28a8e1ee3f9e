"""``asyncio.timeout``'s ``reschedule`` and ``expired``.

- ``moved-to-the-past``: a deadline moved to a time already past expires the scope
  through ``call_soon``: ``_on_timeout`` runs in the next turn, and the body sees the
  cancel in the turn after.
- ``moved-while-expiring``: once the deadline passed, the body (which caught the
  cancel inside the scope) may not move it: ``RuntimeError``. The body returns
  normally, so the scope does too, and ``expired()`` stays true.
- ``moved-after-exit``: after the scope ended, expired or not, ``reschedule`` is a
  ``RuntimeError``.
"""

import asyncio

import truthtrace as truth


async def main():
    loop = asyncio.get_running_loop()

    try:
        async with asyncio.timeout(10) as scope:
            scope.reschedule(loop.time() - 1)
            truth.event("moved-to-the-past")
            await asyncio.sleep(10)
    except TimeoutError:
        truth.event(f"past-timed-out-expired-{scope.expired()}")

    async with asyncio.timeout(0.01) as scope:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            truth.event(f"caught-expired-{scope.expired()}")
        try:
            scope.reschedule(loop.time() + 10)
        except RuntimeError:
            truth.event("refused-while-expiring")
    truth.event(f"swallowed-scope-ended-expired-{scope.expired()}")
    try:
        scope.reschedule(None)
    except RuntimeError:
        truth.event("refused-after-exit")

    async with asyncio.timeout(10) as scope:
        await asyncio.sleep(0)
    try:
        scope.reschedule(None)
    except RuntimeError:
        truth.event(f"refused-after-clean-exit-expired-{scope.expired()}")


loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
