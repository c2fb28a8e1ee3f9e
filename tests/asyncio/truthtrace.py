"""Turn-numbered traces of real asyncio, for oneloop's truth suite.

Every scenario script in this folder imports this module first, before any event loop
exists, and then runs an ordinary asyncio program. The module instruments the loop from
the outside; nothing in the scenario counts turns itself:

- a turn is one call of ``BaseEventLoop._run_once``, counted per loop, from 1;
- every handle the loop runs (``Handle._run``) adds a line ``turn=T run=NAME``, where
  NAME comes from the handle's callback (see ``handle_name``);
- ``event(name)`` adds ``turn=T event=NAME`` (``turn=-`` outside any turn);
- closing a loop adds ``turns=N``, the number of turns that loop ran;
- ``section(name)`` adds ``section=NAME``, for a script that runs several loops;
- ``asyncio.run`` cancelling leftover tasks is bracketed by ``mark=cancel-leftovers``
  and ``mark=cancelled-leftovers`` lines, so the Rust side can tell those turns apart.

A handle's line is placed where the handle started, before the events it recorded, but
its name is read after it ran, so a task that names itself in its first step is shown by
that name (a handle cancelled while it ran keeps the name it started with). The trace goes to stdout when the script exits. No line holds a time.
"""

import asyncio
import asyncio.base_events
import asyncio.events
import asyncio.runners
import atexit
import os
import re
import sys

_lines = []
_turn = None  # the turn running now, or None between turns

# Task names asyncio gives when none is chosen: "Task-7".
_DEFAULT_TASK_NAME = re.compile(r"Task-\d+")
# Where asyncio's own coroutines are defined.
_ASYNCIO_DIR = os.path.dirname(asyncio.__file__) + os.sep


def _task_name(task):
    """A task's name as oneloop would label it."""
    name = task.get_name()
    if not _DEFAULT_TASK_NAME.fullmatch(name):
        return name  # chosen with create_task(..., name=...) or set_name
    coro = task.get_coro()
    qualname = getattr(coro, "__qualname__", "")
    filename = getattr(getattr(coro, "cr_code", None), "co_filename", "")
    if qualname == "main":
        return "main"  # the task run_until_complete makes; oneloop labels it "main"
    if filename.startswith(_ASYNCIO_DIR):
        return qualname  # asyncio's own coroutines: BaseEventLoop.shutdown_asyncgens
    return "task"  # an unnamed task; oneloop shows one by its id, the suite as "task"


def handle_name(handle):
    """The name of a handle, from its callback.

    A task's ``__step`` or ``__wakeup`` (the C accelerator's ``TaskStepMethWrapper`` or
    ``task_wakeup``) is named after its task: both are one step of that task, which is
    what oneloop's step handle is. Any other callback is named by its ``__name__``:
    ``_run_until_complete_cb``, gather's ``_done_callback``, or the scenario's own
    function.
    """
    callback = handle._callback
    owner = getattr(callback, "__self__", None)
    if owner is not None and hasattr(owner, "get_coro"):
        return _task_name(owner)
    return getattr(callback, "__name__", type(callback).__name__)


def _turn_field():
    return "-" if _turn is None else str(_turn)


def event(name):
    """Records a named event in the current turn (or outside any turn)."""
    _lines.append(f"turn={_turn_field()} event={name}")


def section(name):
    """Starts a section: the next loop's turns count from 1 again."""
    _lines.append(f"section={name}")


def report_exceptions(loop):
    """Makes ``loop`` record each exception it catches as an event, instead of logging.

    The event is ``exception:CALLBACK:MESSAGE``, as the Rust side writes it from its
    exception report (the handle's label and the panic message).
    """

    def handler(_loop, context):
        handle = context.get("handle")
        where = handle_name(handle) if handle is not None else "-"
        event(f"exception:{where}:{context.get('exception')}")

    loop.set_exception_handler(handler)


_original_run_once = asyncio.base_events.BaseEventLoop._run_once
_original_handle_run = asyncio.events.Handle._run
_original_close = asyncio.base_events.BaseEventLoop.close
_original_cancel_all_tasks = asyncio.runners._cancel_all_tasks


def _run_once(self):
    global _turn
    self._truth_turns = getattr(self, "_truth_turns", 0) + 1
    _turn = self._truth_turns
    try:
        _original_run_once(self)
    finally:
        _turn = None


def _handle_run(self):
    at = len(_lines)
    # A handle cancelled while it runs (a reader that removes itself) has lost its
    # callback by the time it returns: then the name it had when it started is used.
    name_before = handle_name(self)
    try:
        _original_handle_run(self)
    finally:
        name = name_before if self._callback is None else handle_name(self)
        _lines.insert(at, f"turn={_turn_field()} run={name}")


def _close(self):
    if not self.is_closed():
        _lines.append(f"turns={getattr(self, '_truth_turns', 0)}")
    _original_close(self)


def _cancel_all_tasks(loop):
    _lines.append("mark=cancel-leftovers")
    try:
        _original_cancel_all_tasks(loop)
    finally:
        _lines.append("mark=cancelled-leftovers")


def _print_trace():
    sys.stdout.write("".join(line + "\n" for line in _lines))
    sys.stdout.flush()


# Installed at import, before the scenario creates a loop. asyncio.runners looks
# _cancel_all_tasks up in its module globals when Runner.close calls it.
asyncio.base_events.BaseEventLoop._run_once = _run_once
asyncio.events.Handle._run = _handle_run
asyncio.base_events.BaseEventLoop.close = _close
asyncio.runners._cancel_all_tasks = _cancel_all_tasks
atexit.register(_print_trace)
