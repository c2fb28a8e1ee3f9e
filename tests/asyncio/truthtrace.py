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
that name (a handle cancelled while it ran keeps the name it started with). The trace
goes to stdout when the script exits. No line holds a time.

``run_scenarios`` starts many scenarios from one interpreter, each in a process of its
own: the suite pays CPython's start-up and imports once instead of once per scenario.
"""

import asyncio
import asyncio.base_events
import asyncio.events
import asyncio.runners
import atexit
import os
import re
import runpy
import select
import signal
import socket
import sys
import time

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


def tcp_pair():
    """A connected TCP pair on 127.0.0.1, made before the loop runs (for the stream
    scenarios): the script's end and the peer's."""
    listener = socket.create_server(("127.0.0.1", 0))
    ours = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    listener.close()
    return ours, peer


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


# The script's globals, alive in a forked child until it exits, as a script's are.
_script_globals = None


# How many forked scenarios run at once. A scenario spends most of its time asleep (its
# timers and sleeps are real), so a few side by side take about as long as one; more
# would crowd the machine's two cores when they all start.
AT_ONCE = 4


def run_scenarios(limit, names):
    """Runs each script ``NAME.py`` of ``names`` (in the current folder) in a process of
    its own, forked from this one, at most ``AT_ONCE`` at a time, and prints what each
    printed between ``truth-scenario=NAME`` and ``truth-exit=NAME STATUS``, in the order
    of ``names``. A child still running after ``limit`` seconds is killed.

    Call it from a fresh interpreter that has imported only this module: each child then
    starts as the script's own process would be when its ``import truthtrace`` returns,
    with the loop instrumented, no event loop yet, and this module's exit handler, which
    prints the trace. The child runs the script as ``__main__`` and then ends as any
    interpreter does (non-daemon threads joined, exit handlers, then the teardown), so
    nothing one scenario leaves behind reaches another. What a child inherits that its
    own process would not have: asyncio already imported, and another layout of the
    heap, so an order that follows objects' addresses (the iteration order of a set of
    tasks) may differ. The loop's clock, ``time.monotonic``, is the machine's. A child's
    standard error is dropped: a caller that sees a status other than 0 runs that
    script alone to see why.
    """
    waiting = list(names)
    # The read end of each running child's pipe: its name, pid, deadline and output.
    running = {}
    done = {}
    while waiting or running:
        while waiting and len(running) < AT_ONCE:
            name = waiting.pop(0)
            sys.stdout.flush()
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                for other in running:
                    os.close(other)
                _run_child(name, read_end, write_end)
            os.close(write_end)
            running[read_end] = (name, pid, time.monotonic() + limit, [])
        earliest = min(deadline for _, _, deadline, _ in running.values())
        ready = select.select(list(running), [], [], max(0.0, earliest - time.monotonic()))[0]
        for read_end in list(running):
            name, pid, deadline, chunks = running[read_end]
            if read_end in ready:
                chunk = os.read(read_end, 65536)
                if chunk:
                    chunks.append(chunk)
                    continue
            elif time.monotonic() < deadline:
                continue
            else:
                os.kill(pid, signal.SIGKILL)
            os.close(read_end)
            del running[read_end]
            _, status = os.waitpid(pid, 0)
            done[name] = (b"".join(chunks), os.waitstatus_to_exitcode(status))
    for name in names:
        printed, status = done[name]
        sys.stdout.write(f"truth-scenario={name}\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(printed)
        sys.stdout.write(f"truth-exit={name} {status}\n")
        sys.stdout.flush()


def _run_child(name, read_end, write_end):
    """The forked child: stdout to the pipe, stderr dropped, the script as ``__main__``,
    then the interpreter's own exit (``SystemExit`` unwinds out of the caller's loop)."""
    global _script_globals
    os.close(read_end)
    os.dup2(write_end, 1)
    os.close(write_end)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    # What `python3 NAME.py` would have: the script as argv, its folder first on the path.
    script = os.path.abspath(f"{name}.py")
    sys.argv = [script]
    sys.path[0] = os.path.dirname(script)
    _script_globals = runpy.run_path(script, run_name="__main__")
    sys.exit(0)
