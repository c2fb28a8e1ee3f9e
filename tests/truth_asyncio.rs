//! The differential truth suite: the same small programs on real CPython asyncio and on
//! oneloop, compared turn by turn.
//!
//! Each scenario is a pair: `tests/asyncio/<name>.py`, an ordinary asyncio program that
//! imports the helper `tests/asyncio/truthtrace.py` (which counts turns by wrapping
//! `BaseEventLoop._run_once` and names every handle the loop runs), and the Rust
//! function of the same name in `mod oneloop` below, the same program on oneloop, whose
//! turns come from the loop's observer hook. Both print a trace of named events and
//! handles with their turn numbers, never a time; see `truth/mod.rs` for the format.
//! Where oneloop differs on purpose, the scenario lists the [`Difference`]s, and each
//! rewrites CPython's trace into what oneloop does instead before the comparison.
//! `book/src/truth.md` explains the checks and each difference.
//!
//! # Adding a scenario (the timer, socket and thread scenarios came in this way)
//!
//! 1. Write `tests/asyncio/<name>.py`: `import truthtrace as truth` before any loop
//!    exists, then the program, recording with `truth.event("...")` (and
//!    `truth.section("...")` before each loop if it runs several).
//! 2. Write `fn <name>(rec: &Rc<Recorder>)` in `mod oneloop`: the same program on a
//!    loop from `rec.event_loop()` (or any loop after `rec.attach(event_loop.core())`,
//!    or `run_with(|l| rec.attach(l.core()), ..)`), recording the same events, and
//!    closing the loop at the end (closing records `turns=N`). For a program that is
//!    one `main`, `run_main(rec, event_loop, |rec| async move { .. })` does all three:
//!    it attaches the recorder, runs main to its end and closes the loop.
//! 3. Add `<name>: differs [..], cpython_says [..];` to the `scenarios!` list. `differs`
//!    names the differences on purpose (each must change CPython's trace, or the
//!    scenario fails); `cpython_says` lists lines CPython's raw trace must hold, for the
//!    CPython figures the book quotes.
//!
//! A `#[test]` named `scenario::<name>` is generated for each entry, and
//! `every_script_has_a_scenario_and_back` keeps the list and the folder in step.
//!
//! The scripts do not each start a CPython: the first scenario to run has one CPython
//! fork a process per script (`truthtrace.run_scenarios`), and each script runs and
//! exits in its child as in a process of its own. A forked child's heap is laid out
//! otherwise than a fresh process's, so a scenario whose CPython order follows objects'
//! addresses (a group's set of tasks, `GroupCancelsInSetOrder`) runs in a fresh
//! CPython of its own: see `runs_alone` in `truth/mod.rs`.

mod external;
mod truth;

use std::collections::BTreeSet;
use std::fs;

use oneloop_testkit::watchdog_default;
use truth::Difference::WaitForReleasesAWaiter;
use truth::Difference::{
    CancelBecomesDrop, ChainCancelCheck, GatherDoneCallbackHop, SelfPipeRead, ShutdownTurns,
    TiesInSchedulingOrder, TimeoutFiresASleep,
};
use truth::Difference::{GroupCancelsInSetOrder, ShieldOuterCallback, WaitDoneCallbackHop};
use truth::Difference::{SockRecvCallbackHop, StreamTransport, ThreadSafeCallsAtThePark};
use truth::{Difference, Scenario};

/// Declares the scenarios: the list `SCENARIOS`, and one `#[test]` per scenario, so a
/// failure names the scenario.
macro_rules! scenarios {
    ($(
        $(#[$doc:meta])*
        $name:ident: differs [$($difference:expr),* $(,)?], cpython_says [$($line:expr),* $(,)?];
    )*) => {
        const SCENARIOS: &[Scenario] = &[$(
            Scenario {
                name: stringify!($name),
                oneloop: oneloop::$name,
                differences: &[$($difference),*],
                cpython_says: &[$($line),*],
            },
        )*];

        mod scenario {
            $(
                $(#[$doc])*
                #[test]
                fn $name() {
                    let scenario = super::SCENARIOS
                        .iter()
                        .find(|s| s.name == stringify!($name))
                        .expect("declared by the same macro");
                    super::truth::check(scenario, super::SCENARIOS);
                }
            )*
        }
    };
}

// ANCHOR: scenarios
scenarios! {
    /// call_soon is FIFO, and one turn runs all that was queued before it.
    call_soon_fifo: differs [], cpython_says ["turn=1 run=third", "turns=1"];
    /// A callback queued by a running callback runs in the next turn, after the batch.
    callback_queues_callback: differs [], cpython_says ["turn=2 run=c", "turns=2"];
    /// A future completed by a callback in turn T resumes its waiter in turn T+1.
    two_hop_wakeup: differs [],
        cpython_says ["turn=2 run=setter", "turn=3 run=main", "turns=4"];
    /// Awaiting an already-complete future costs no turn.
    complete_future_no_turn: differs [],
        cpython_says ["turn=1 event=after-await-3", "turns=2"];
    /// Three nested awaits of coroutines where nothing waits cost no turn.
    nested_awaits: differs [],
        cpython_says ["turn=1 event=main-got-3", "turns=2"];
    /// Awaiting a task resumes the awaiter one turn after the task finishes.
    task_join_one_hop: differs [],
        cpython_says ["turn=3 event=child-returns", "turn=4 event=main-joined-7", "turns=5"];
    /// gather of three children that yield once: who runs in which turn.
    gather_three_children: differs [GatherDoneCallbackHop],
        cpython_says ["turn=4 run=_done_callback", "turn=5 run=main", "turns=6"];
    /// gather of 10 and of 1000 children take the same turns.
    gather_10_vs_1000: differs [GatherDoneCallbackHop],
        cpython_says ["section=gather-10", "turns=6", "section=gather-1000", "turns=6"];
    /// Yielding tasks alternate A0 B0 A1 B1 A2 B2; without yields, A0 A1 A2 B0 B1 B2.
    take_turns: differs [],
        cpython_says ["section=yielding", "turns=7", "section=not-yielding", "turns=4"];
    /// A self-re-queuing callback runs once per turn, and main still finishes.
    self_requeue: differs [], cpython_says ["turn=5 run=spin", "turns=5"];
    /// An empty program run with run / asyncio.run: 2 turns, and CPython's 6.
    empty_run: differs [ShutdownTurns], cpython_says ["turns=6"];
    /// stop() from a callback ends run_forever after the current turn.
    stop_from_callback: differs [], cpython_says ["turn=2 run=later", "turns=2"];
    /// A callback queued in run_until_complete's last turn is left queued; the next
    /// run runs it in its first turn, ahead of its main's first step.
    callback_left_by_last_turn: differs [],
        cpython_says ["turn=2 run=late", "turn=2 run=_run_until_complete_cb",
            "turn=- event=first-run-returned", "turn=3 run=later", "turn=3 run=main",
            "turns=4"];
    /// stop() before run_until_complete: main ends in the one turn, and the stop
    /// callback its end queued stops the next run_forever after its first turn.
    stale_stop_callback: differs [],
        cpython_says ["turn=- event=run_until_complete-returned-7",
            "turn=2 run=_run_until_complete_cb", "turn=2 run=a",
            "turn=- event=run_forever-returned", "turn=3 run=b", "turns=3"];
    /// stop() before run_forever: one turn, then it returns; stop() twice is one stop.
    stop_before_run: differs [],
        cpython_says ["turn=1 event=first", "turn=- event=run_forever-returned",
            "turn=2 event=second", "turns=2"];
    /// stop() while run_until_complete's main waits: the call fails, main lives on, a
    /// later run_forever finishes it, and its end stops nothing.
    stopped_before_complete: differs [],
        cpython_says ["turn=2 event=stop", "turn=- event=raised-stopped-before-complete",
            "turn=4 event=main-got-7", "turns=4"];
    /// A raising (panicking) callback is reported, and the loop goes on.
    raising_callback: differs [],
        cpython_says ["turn=1 event=exception:bad:oops", "turn=1 run=good", "turns=2"];
    /// A main that raises (panics): run_until_complete runs the stop callback's turn,
    /// then gives main's error; nothing goes to the exception handler.
    main_raises: differs [],
        cpython_says ["turn=2 event=main-raises", "turn=3 run=_run_until_complete_cb",
            "turn=- event=run_until_complete-raised-oops", "turns=3"];
    /// A task that fails with no one holding it is reported right after its failing
    /// step, in the same turn.
    task_exception_never_retrieved: differs [],
        cpython_says ["turn=3 run=failing", "turn=3 event=report-never-retrieved-oops",
            "turn=3 run=main"];
    /// A task left waiting when run's main returns: cancelled by CPython, dropped here.
    run_drops_leftover: differs [ShutdownTurns, CancelBecomesDrop],
        cpython_says ["turn=4 event=leftover-cleanup", "turns=10"];

    /// One Runner, two runs of an empty main: two turns each, counted on; closing it
    /// adds CPython's shutdown turns and none of oneloop's.
    runner_reused: differs [ShutdownTurns],
        cpython_says ["turn=3 run=main", "turn=4 run=_run_until_complete_cb",
            "turn=- event=second-run-returned", "turns=8"];

    // Stage 5: timers.
    /// call_later(0) runs after a call_soon callback, in the same turn, even when the
    /// timer was scheduled first: timers reach the ready queue only after the select.
    call_later_zero: differs [],
        cpython_says ["section=before-the-loop-runs", "turn=1 run=soon", "turn=1 run=later",
            "turns=1", "section=from-a-callback", "turn=2 run=soon", "turn=2 run=later"];
    /// Five timers with one deadline run in one turn: CPython in its heap's order,
    /// oneloop in scheduling order.
    equal_deadlines: differs [TiesInSchedulingOrder],
        cpython_says ["turn=2 run=tie_0", "turn=2 run=tie_2", "turn=2 run=tie_4",
            "turn=2 run=tie_1", "turn=2 run=tie_3", "turns=4"];
    /// The sweep rebuilds the heap only above 100 timers with more than half cancelled.
    sweep_edges: differs [],
        cpython_says ["turn=2 event=after-scheduled=100-cancelled=51",
            "turn=2 event=after-scheduled=50-cancelled=0",
            "turn=2 event=after-scheduled=102-cancelled=51",
            "turn=2 event=after-scheduled=50-cancelled=0"];
    /// A timer that comes due while a turn runs (its callback blocked) waits for the
    /// next turn's due pass, behind what that callback queued.
    timer_due_mid_turn: differs [],
        cpython_says ["turn=1 event=first-time-moved-True", "turn=1 run=second",
            "turn=2 run=soon", "turn=2 run=timer", "turns=2"];
    /// stop() from a timer callback: the turn runs on, the other due timer included;
    /// call_at a second in the past runs in the first turn, ahead of one due now.
    stop_from_timer: differs [],
        cpython_says ["turn=1 run=first", "turn=1 run=second", "turn=- event=run_forever-returned",
            "turn=2 run=soon", "turn=3 run=third", "turns=3"];
    /// The sweep pops a cancelled head before the select timeout is computed: the loop
    /// waits for the next live timer, and runs it in that turn.
    select_skips_cancelled_head: differs [],
        cpython_says ["turn=2 run=late", "turn=- event=timeouts-zero-long-zero-zero", "turns=4"];
    /// Cancelled timers that the due pass takes out stay counted (only the sweep's pops
    /// lower the count), so a later sweep rebuilds sooner than the heap alone says.
    due_pass_keeps_cancel_count: differs [],
        cpython_says ["turn=2 event=after-due-pass-scheduled=0-cancelled=150",
            "turn=3 event=after-sweep-scheduled=109-cancelled=0"];
    /// A sleeping task cancelled (CPython) or its sleep dropped (oneloop): the timer is
    /// cancelled in the task's next step and swept a turn later. Where oneloop differs,
    /// it differs without changing the trace, so it cannot be a declared difference:
    /// oneloop has no `Task.cancel`, the task drops its body on a cancel signal, and
    /// the sleep's `Drop` cancels the timer where CPython's `CancelledError` runs the
    /// sleep's `finally`.
    cancelled_sleep: differs [],
        cpython_says ["turn=3 event=sleeper-ends-scheduled=1-cancelled=1",
            "turn=4 event=main-resumed-scheduled=0-cancelled=0", "turns=5"];
    /// A 10 s sleep under a 0.01 s timeout: the timer fires in turn 2, main ends with
    /// the error in turn 3.
    timeout_sleep: differs [TimeoutFiresASleep],
        cpython_says ["turn=2 run=_on_timeout", "turn=3 event=nap-ends",
            "turn=3 event=main-timed-out-scheduled=1-cancelled=1", "turns=4"];
    /// Debug mode reports every handle that ran at least the threshold, of each kind,
    /// right after it ran; a quick one is not reported.
    debug_slow_handles: differs [],
        cpython_says ["turn=1 event=slow-Task-main", "turn=2 event=slow-Handle-block_cb",
            "turn=2 run=quick", "turn=2 event=slow-TimerHandle-alarm"];
    /// call_soon, sleep(0) and call_later(0) from one step: the callback, the task's
    /// next step, then the timer, all in the next turn.
    soon_sleep_zero_later: differs [],
        cpython_says ["turn=2 run=soon", "turn=2 event=main-after-soon",
            "turn=2 event=later-after-soon-main-later"];
    /// sleep(0) is a bare yield: the same turns as yield_now, and no timer.
    sleep_zero_yields: differs [],
        cpython_says ["section=sleep-zero", "turn=4 event=main-done", "turns=5"];

    // Stage 6: I/O.
    /// Two sockets readable before one select: both readers run in that turn, in the
    /// order the sockets became readable.
    two_sockets_one_turn: differs [],
        cpython_says ["section=write-b-then-a", "turn=2 run=on_b", "turn=2 run=on_a",
            "section=write-a-then-b", "turn=2 run=on_a", "turn=2 run=on_b"];

    /// A reader that reads one byte per call from a socket holding three runs in three
    /// turns in a row: level-triggered on CPython, re-armed after each event here.
    reader_one_byte_per_call: differs [],
        cpython_says ["turn=2 event=read-a", "turn=3 event=read-b", "turn=4 event=read-c",
            "turns=6"];
    /// Readers replaced or removed after the select queued them do not run; the new
    /// reader runs in the next turn, since the byte is still unread.
    replace_queued_reader: differs [],
        cpython_says ["turn=2 run=on_a", "turn=2 event=removed-c-True", "turn=3 run=on_b_new",
            "turns=5"];

    /// A task in a stream's readline, woken by a line written a turn later: CPython's
    /// transport reads in its reader callback and wakes the task a turn after;
    /// oneloop's reader reads in the task's step. drain returns at once.
    stream_readline_waits: differs [StreamTransport],
        cpython_says ["turn=2 run=connection_made", "turn=3 event=opened",
            "turn=5 run=_read_ready", "turn=6 event=got-ping", "turn=6 event=drained",
            "turn=7 run=_call_connection_lost", "turns=7"];
    /// A line in two parts 50 ms apart: readline wakes for each part.
    stream_line_in_two_parts: differs [StreamTransport],
        cpython_says ["turn=5 run=_read_ready", "turn=6 run=main", "turn=7 run=second_half",
            "turn=8 run=_read_ready", "turn=9 event=got-ping", "turns=10"];
    /// A line and a cut line sent with the end of file while main waits: the line in
    /// the turn after the select, the cut line and the end of file a turn later.
    stream_eof_after_a_line: differs [StreamTransport],
        cpython_says ["turn=5 run=_read_ready", "turn=6 event=line-a", "turn=6 run=_read_ready",
            "turn=7 event=partial-b", "turn=7 event=eof", "turns=8"];
    /// A task waiting to read an empty socket, woken by data written a turn later:
    /// CPython's sock_recv reads in a reader callback and wakes the task a turn after;
    /// oneloop's readiness future wakes the task, which reads.
    sock_recv_waits: differs [SockRecvCallbackHop],
        cpython_says ["turn=2 event=writes-x", "turn=3 run=_sock_recv", "turn=4 run=partial",
            "turn=4 event=main-got-x", "turns=5"];
    /// One turn runs what call_soon queued, then the select's I/O callbacks, then the
    /// timers that came due, whichever was scheduled first.
    io_then_timers_in_a_turn: differs [],
        cpython_says ["turn=2 run=soon", "turn=2 run=on_read", "turn=2 run=timer", "turns=4"];
    /// A reader on a socket whose peer closed runs in every turn, reading the end of
    /// file each time, until it removes itself.
    reader_at_eof: differs [],
        cpython_says ["turn=2 event=read-x", "turn=3 event=eof-1", "turn=5 event=eof-3",
            "turns=7"];
    /// A reader and a writer on one socket: the reader runs first, whichever was added
    /// first, and a writer runs in every turn while the socket stays writable.
    reader_and_writer_one_socket: differs [],
        cpython_says ["turn=2 run=on_read", "turn=2 run=on_write", "turn=4 event=writable-3",
            "turns=6"];

    // Stage 7: offload.
    /// call_soon_threadsafe wakes an idle loop: the callback runs in the next turn,
    /// main one turn later.
    threadsafe_wakes_idle_loop: differs [SelfPipeRead],
        cpython_says ["turn=2 run=wake", "turn=3 event=main-resumed-woken", "turns=4"];
    /// to_thread of a function that raises (panics): the error comes back in the turns
    /// a value does, and main's await gives it in turn 3.
    to_thread_raises: differs [SelfPipeRead, ChainCancelCheck, ShutdownTurns],
        cpython_says ["turn=2 run=_set_state", "turn=3 event=main-caught-boom"];
    /// call_soon_threadsafe among the loop's own handles: CPython runs the calls where
    /// they were made; oneloop runs them at the end of the next turn.
    threadsafe_among_call_soon: differs [SelfPipeRead, ThreadSafeCallsAtThePark],
        cpython_says ["turn=2 run=from_thread_0", "turn=2 run=local_1", "turn=2 run=from_thread_2",
            "turn=2 run=timer"];
    /// to_thread: the result comes back through call_soon_threadsafe in turn 2, main
    /// resumes in turn 3.
    to_thread_result: differs [SelfPipeRead, ChainCancelCheck, ShutdownTurns],
        cpython_says ["turn=2 run=_set_state", "turn=3 run=_call_check_cancel",
            "turn=3 event=main-resumed-5050", "turn=8 run=set_result", "turns=10"];

    // Stage 9: cancellation and structured concurrency.
    /// A sleeping task cancelled with a message sees it at its await in the next turn;
    /// its cleanup awaits a sleep of its own; the task ends cancelled.
    cancel_sleeping_task: differs [],
        cpython_says ["turn=3 event=sleeper-saw-stop", "turn=5 event=sleeper-cleaned-up",
            "turn=6 event=main-joined-cancelled-True"];
    /// A task that catches the cancel carries on and returns a value; its request
    /// count stays at one.
    cancel_catch_continue: differs [],
        cpython_says ["turn=5 event=main-got-5-cancelled-False-cancelling-1"];
    /// Cancelling a task that awaits a child: the child sees it first (turn 4), the
    /// parent a turn later.
    cancel_awaiting_child: differs [],
        cpython_says ["turn=4 event=child-cancelled", "turn=5 event=parent-cancelled-child-True"];
    /// shield: the awaiting task is cancelled, the shielded task runs to its end.
    /// Turn-structured (yields, no timers), so no two deadlines race.
    shield_inner: differs [ShieldOuterCallback],
        cpython_says ["turn=3 run=_outer_done_callback", "turn=3 event=outer-cancelled",
            "turn=6 event=inner-done"];
    /// shield of a task that ends while it is awaited: CPython's outer future takes a
    /// hop; a cancel of the task from elsewhere reaches the awaiting task as a cancel
    /// with no message, and its cancelling() stays 0.
    shield_inner_ends: differs [ShieldOuterCallback],
        cpython_says ["section=inner-returns", "turn=5 run=_inner_done_callback",
            "turn=6 event=outer-got-inner", "section=inner-cancelled",
            "turn=5 event=outer-caught-cancel-None-cancelling-0"];
    /// cancelling() counts two requests, uncancel() takes them back; a task's own
    /// request is delivered at its next step.
    uncancel_counts: differs [],
        cpython_says ["turn=1 event=requested-True-True-cancelling-2",
            "turn=2 event=delivered-at-await"];
    /// timeout: its own cancel becomes TimeoutError; an outer cancel stays a cancel.
    timeout_vs_outer_cancel: differs [],
        cpython_says ["turn=3 run=_on_timeout", "turn=4 event=timed-out-cancelling-0",
            "turn=7 event=guarded-cancelled"];
    /// A timeout in a task that caught an earlier cancel without uncancel: the scope
    /// still gives a timeout, measured against the count it found on entry.
    timeout_after_caught_cancel: differs [],
        cpython_says ["turn=2 event=caught-early-cancelling-1",
            "turn=4 event=leftover-timed-out-cancelling-1",
            "turn=6 event=clean-timed-out-cancelling-0"];
    /// A TaskGroup whose child fails: _on_task_done cancels the sibling and the body in
    /// the next turn; the group raises when the last child is done.
    taskgroup_one_fails: differs [],
        cpython_says ["turn=5 run=_on_task_done", "turn=6 event=a-cancelled",
            "turn=6 event=body-cancelled", "turn=8 event=main-caught-1-boom"];
    /// A group's child spawns a sibling after the body ended: the group waits for it;
    /// once exited, the group refuses new tasks.
    taskgroup_child_spawns_sibling: differs [],
        cpython_says ["turn=3 event=first-spawned-late", "turn=4 run=_on_task_done",
            "turn=7 run=_on_task_done", "turn=8 event=group-exited",
            "turn=8 event=refused-finished-True"];
    /// Nested TaskGroups: the inner failure fails the inner group's task, which makes
    /// the outer group cancel the rest.
    taskgroup_nested: differs [],
        cpython_says ["turn=7 event=inner-body-cancelled", "turn=9 event=outer-body-cancelled",
            "turn=11 event=main-caught-1"];
    /// gather(return_exceptions=True): results and errors in argument order. The
    /// children yield 3, 1 and 2 times (turns, not timers).
    gather_return_exceptions: differs [GatherDoneCallbackHop],
        cpython_says ["turn=7 event=main-got-3-fail-1-2"];
    /// wait(FIRST_COMPLETED) returns with the first done task and two pending ones.
    /// One child is done after a yield; the others sleep 5 and 9 s, far beyond the run.
    wait_first_completed: differs [WaitDoneCallbackHop],
        cpython_says ["turn=4 run=_on_completion", "turn=5 event=main-done-1-pending-2-first-1"];

    // Stage 9: wait_for, and run's cleanup asyncio's way.
    /// wait_for on a slow task: the deadline cancels the task, which sees it at its
    /// await, and wait_for raises TimeoutError. oneloop follows 3.12's wait_for.
    wait_for_slow_task: differs [WaitForReleasesAWaiter],
        cpython_says ["turn=3 run=_release_waiter", "turn=5 event=slow-saw-cancel",
            "turn=6 run=partial", "turn=7 event=main-timed-out-task-cancelled-True"];
    /// asyncio.run's cleanup: leftovers are cancelled and awaited; a _done_callback
    /// each, then _run_until_complete_cb; a failure in cleanup is reported after.
    run_cancels_leftovers: differs [ShutdownTurns],
        cpython_says ["turn=4 event=sleeping-saw-cancel", "turn=5 run=_done_callback",
            "turn=7 run=_run_until_complete_cb",
            "turn=- event=shutdown-failed-spinning-cleanup failed"];
    /// A second cancel during the cleanup of the first cuts the cleanup short at its
    /// own await.
    cancel_during_cleanup: differs [],
        cpython_says ["turn=3 event=worker-cleanup-starts",
            "turn=5 event=worker-cleanup-cut-short", "turn=6 event=main-joined-cancelled-True"];

    // Stage 10: shared state across awaits.
    /// Two workers that read, await and write a counter lose half their updates.
    lost_update_no_lock: differs [],
        cpython_says ["turn=3 event=b-wrote-1", "turn=6 event=counter-3-of-6"];
    /// The same workers holding a Lock around each update lose none.
    lost_update_with_lock: differs [],
        cpython_says ["turn=13 event=b-wrote-6", "turn=14 event=counter-6-of-6"];
    /// Three waiters get a lock first in, first out, one turn after each release; the
    /// releaser asking again queues behind them.
    lock_three_waiters: differs [],
        cpython_says ["turn=3 event=a-acquired", "turn=7 event=c-acquired",
            "turn=9 event=main-acquired-again"];
    /// A waiter cancelled while queued leaves the queue and the next one gets the lock,
    /// whether the cancel came before the release or just after its wake.
    lock_cancelled_waiter: differs [],
        cpython_says ["turn=3 event=a-cancelled", "turn=4 event=b-acquired",
            "turn=7 event=c-cancelled", "turn=8 event=d-acquired"];
    /// One Event.set wakes three waiters, who all run in the next turn.
    event_wakes_all: differs [],
        cpython_says ["turn=2 event=set", "turn=3 event=a-woke", "turn=3 event=c-woke"];
    /// A Semaphore(2) lets two of four workers in at a time.
    semaphore_limit_two: differs [],
        cpython_says ["turn=2 event=b-in", "turn=5 event=c-in", "turn=8 event=value-2"];
    /// A Queue(maxsize=1) between a producer and a consumer: the turn each put and get
    /// finishes in.
    queue_maxsize_one: differs [],
        cpython_says ["turn=2 event=got-0", "turn=5 event=put-2", "turn=6 event=got-2"];
    /// join returns in the turn after the last task_done; one more is an error.
    queue_join_task_done: differs [],
        cpython_says ["turn=5 event=joined", "turn=5 event=task-done-too-often"];
    /// A context variable is copied at create_task: a later change in the parent is not
    /// seen by the child, nor the child's change by the parent.
    context_copied_at_create_task: differs [],
        cpython_says ["turn=2 event=child-sees-first", "turn=4 event=parent-sees-second"];

    // The asyncio names: done callbacks, and the loop's own timer methods.
    /// A task's done callback, added before the task ran, runs in the turn after the
    /// task ends, behind a call_soon queued before that end.
    done_callback_order: differs [],
        cpython_says ["turn=2 run=soon", "turn=3 run=done_callback", "turn=3 event=done-7"];
    /// call_later and call_at share one heap: a call_at timer with a past deadline,
    /// scheduled second, runs before a call_later(0) timer scheduled first.
    call_later_then_call_at: differs [],
        cpython_says ["turn=2 event=at", "turn=2 event=later", "turn=3 event=main-resumed"];
    /// sleep of one microsecond makes a timer: two turns per call, sleep(0) one.
    sleep_tiny: differs [],
        cpython_says ["turn=2 run=_set_result_unless_cancelled", "turn=3 event=main-0-timers-0",
            "turns=6"];
    /// A timer cancelled twice counts once; one cancelled after it ran counts nothing;
    /// a cancelled head and the cancelled timer behind it leave in the next turn.
    timer_cancel_twice: differs [],
        cpython_says ["turn=1 event=cancelled-twice-scheduled=3-cancelled=1-True",
            "turn=3 event=cancelled-after-run-scheduled=2-cancelled=1-True",
            "turn=4 event=after-turn-scheduled=0-cancelled=0"];

    // Stage 9's corners.
    /// Two requests with different messages before the task's next step: a sleeping
    /// task sees the first, a task at a bare yield or not started yet the last; a task
    /// that cancelled itself and then awaited keeps its own message, and its next step
    /// is queued at the end of the step that cancelled.
    cancel_twice_messages: differs [],
        cpython_says ["turn=3 event=sleeper-saw-first-cancelling-2",
            "turn=7 event=yielder-saw-second-cancelling-2",
            "turn=11 event=unstarted-ended-cancelled-second",
            "turn=13 run=soon", "turn=13 event=itself-saw-own-cancelling-2"];
    /// A timeout's deadline and a cancel from outside in one turn: the body's cancel
    /// stays a cancel, with the message of the request that came first, and one
    /// request is left.
    timeout_meets_outer_cancel: differs [],
        cpython_says ["turn=3 run=outer_cancel", "turn=3 run=_on_timeout",
            "turn=4 event=outer-first-cancelled-outer-expired-True-cancelling-1",
            "turn=7 run=_on_timeout", "turn=7 run=outer_cancel",
            "turn=8 event=deadline-first-cancelled-None-expired-True-cancelling-1"];
    /// A failing group cancels its other children: CPython in its set's order, oneloop
    /// in spawn order; the same turns.
    taskgroup_abort_order: differs [GroupCancelsInSetOrder],
        cpython_says ["turn=4 run=_on_task_done", "turn=7 event=main-caught-1"];
    /// A task awaiting gather is cancelled: the children are; collecting, the task
    /// resumes after the last child, cancelled though one child returned; not
    /// collecting, at the first cancelled child.
    gather_cancelled: differs [GatherDoneCallbackHop],
        cpython_says ["turn=7 run=_done_callback", "turn=8 event=collect-cancelled-stop",
            "turn=13 run=_done_callback", "turn=14 event=first-cancelled-stop"];
    /// as_completed yields in the order the tasks finished, not the argument order.
    as_completed_order: differs [WaitDoneCallbackHop],
        cpython_says ["turn=5 run=_on_completion", "turn=6 event=main-got-t1",
            "turn=6 event=main-got-t0"];
    /// wait and as_completed on a task already done still suspend once: a turn here,
    /// two in CPython, whose _on_completion turn the declared difference removes.
    wait_on_done_tasks: differs [WaitDoneCallbackHop],
        cpython_says ["turn=3 event=quick-done-True", "turn=4 run=_on_completion",
            "turn=5 event=wait-returned-1-0", "turn=6 run=_on_completion",
            "turn=7 event=as-completed-1"];
    /// Two nested timeouts with one deadline: the inner lets the cancel through, the
    /// outer gives the timeout, whichever armed first.
    nested_timeouts: differs [],
        cpython_says ["turn=3 event=outer-armed-first-inner-let-it-through-cancelling-1",
            "turn=5 event=inner-armed-first-outer-timed-out-cancelling-0-expired-True-True"];
    /// timeout's reschedule: to a past deadline it expires through call_soon; once the
    /// scope expired or ended it refuses.
    timeout_reschedule: differs [],
        cpython_says ["turn=2 run=_on_timeout", "turn=3 event=past-timed-out-expired-True",
            "turn=5 event=refused-while-expiring", "turn=5 event=refused-after-exit",
            "turn=6 event=refused-after-clean-exit-expired-False"];
    /// A group whose body fails: the child is cancelled and awaited, and the group
    /// raises the child's failure first, the body's last.
    taskgroup_body_fails: differs [],
        cpython_says ["turn=2 event=body-raises", "turn=3 event=noisy-cancelled",
            "turn=5 event=raised-ExceptionGroup[ValueError(noisy),ValueError(body)]-cancelling-0"];
    /// A timeout around a TaskGroup: the deadline cancels the body and the child; a
    /// quiet child gives the timeout, a cleanup that fails gives the group's error.
    timeout_around_taskgroup: differs [],
        cpython_says ["turn=3 run=_on_timeout", "turn=7 event=quiet-raised-TimeoutError-cancelling-0",
            "turn=13 event=cleanup-fails-raised-ExceptionGroup[ValueError(cleanup-fails)]-cancelling-0"];
    /// TaskGroup corners: two children failing in one turn, a child failing while the
    /// body gets an outer cancel, a task refused by an aborting group, an outer cancel,
    /// a body that swallows the group's cancel: what the group raises, and the count.
    taskgroup_corners: differs [],
        cpython_says [
            "turn=6 event=two-fail-raised-ExceptionGroup[ValueError(a),ValueError(b)]-cancelling-0",
            "turn=11 event=fail-under-outer-raised-ExceptionGroup[ValueError(c)]-cancelling-1",
            "turn=16 event=refused-new-task",
            "turn=22 event=outer-cancel-raised-CancelledError(outer)-cancelling-1",
            "turn=28 event=body-swallows-raised-ExceptionGroup[ValueError(f)]-cancelling-0"];

    // Stage 10's corners.
    /// A Condition waiter cancelled while it waits keeps the cancel's message; one
    /// cancelled while it takes the lock back raises a cancel with no message.
    condition_cancelled: differs [],
        cpython_says ["turn=3 event=waiting-cancelled-first-locked-True",
            "turn=8 event=reacquiring-cancelled-None-locked-True",
            "turn=14 event=twice-cancelled-None-locked-True"];
    /// notify(1) passes over a waiter cancelled in the same step and wakes the next;
    /// the cancelled one takes the lock back first, then the notified one.
    condition_notify_skips_cancelled: differs [],
        cpython_says ["turn=3 event=a-cancelled-locked-True", "turn=3 event=b-notified-locked-True",
            "turn=4 event=c-done-False", "turn=5 event=c-notified-locked-True"];
    /// Two releases in one step with one waiter: the woken waiter still counts until it
    /// runs, so a newcomer queues behind it though a unit is free, and gets it from
    /// the waiter's resumption.
    semaphore_woken_waiter_passes_on: differs [],
        cpython_says ["turn=2 event=released-twice-value-1-locked-True",
            "turn=3 event=c-asks-locked-True-value-1", "turn=4 event=c-in-value-0"];
    /// A semaphore waiter woken and cancelled gives its unit on to the next waiter; a
    /// newcomer queues behind.
    semaphore_cancelled_waiter: differs [],
        cpython_says ["turn=3 event=a-cancelled", "turn=4 event=b-in", "turn=6 event=c-in",
            "turn=8 event=a-joined-value-1"];
    /// Event.set, clear and set again in one step: each waiter wakes once, in the next
    /// turn, and sees the event set; a set then clear still wakes a later waiter.
    event_set_clear_set: differs [],
        cpython_says ["turn=2 event=set-clear-set-True", "turn=3 event=a-woke-set-True",
            "turn=3 event=b-woke-set-True", "turn=6 event=c-woke-set-False"];
    /// A Semaphore(2) released twice in one step, one woken waiter and one queued one
    /// cancelled in that step: the woken one's unit goes on to the last waiter.
    semaphore_two_released_two_cancelled: differs [],
        cpython_says ["turn=2 event=released-value-0-locked-True", "turn=3 event=a-cancelled",
            "turn=3 event=b-in-value-0", "turn=3 event=c-cancelled", "turn=4 event=d-in-value-0",
            "turn=5 event=main-done-value-2"];
    /// A Barrier(3) party cancelled while it waits leaves the round: the round waits
    /// for a fourth party, and two parties pass with the same index.
    barrier_cancelled_party: differs [],
        cpython_says ["turn=3 event=a-cancelled-waiting-1", "turn=4 event=after-c-waiting-2-broken-False",
            "turn=5 event=d-passed-2", "turn=6 event=b-passed-1", "turn=6 event=c-passed-1"];
    /// Two puts wake two waiting getters, and main's get_nowait in that step takes one
    /// item: the first getter takes the other, the second waits again for the next.
    queue_two_getters_two_puts: differs [],
        cpython_says ["turn=2 event=main-took-1-size-1", "turn=3 event=a-got-2",
            "turn=4 event=after-a-size-0-b-done-False", "turn=5 event=b-got-3"];
    /// A released Lock with a woken waiter reads as free, though a newcomer that asks
    /// before the waiter runs queues behind it.
    lock_released_to_a_waiter: differs [],
        cpython_says ["turn=2 event=released-locked-False", "turn=3 event=c-asks-locked-False",
            "turn=3 event=a-acquired",
            "turn=3 event=after-turn-locked-True", "turn=5 event=c-acquired"];
    /// A release that finds only a cancelled waiter leaves the unit free: the
    /// releaser takes it back at once, with no turn.
    semaphore_release_past_cancelled: differs [],
        cpython_says ["turn=2 event=released-value-1-locked-False",
            "turn=2 event=main-took-it-again-value-0", "turn=3 event=a-cancelled-value-0"];
    /// A put passes over a getter cancelled before it and wakes the next one, which
    /// takes the item in the next turn.
    queue_put_past_cancelled_getter: differs [],
        cpython_says ["turn=2 event=cancelled-a-put-x-size-1", "turn=3 event=a-cancelled-size-1",
            "turn=3 event=b-got-x"];
    /// A queue putter woken by a get and cancelled before it runs passes the room on
    /// to the next putter.
    queue_cancelled_putter: differs [],
        cpython_says ["turn=3 event=p1-cancelled-size-0", "turn=4 event=p2-put-size-1",
            "turn=5 event=main-sees-p2-p1-cancelled-True"];
    /// A queue getter woken and cancelled passes the item on; the misuse of queues,
    /// semaphores and locks fails at once, with no turn.
    primitives_corners: differs [],
        cpython_says ["turn=3 event=a-cancelled", "turn=4 event=b-got-x",
            "turn=5 event=join-of-nothing-returned", "turn=5 event=semaphore-value-3",
            "turn=5 event=bounded-refused-value-1"];

    // Probed corners of stages 9 and 10.
    /// A task's done callbacks and the tasks awaiting it wake in the order they came;
    /// awaiting a task already done costs no turn.
    done_callback_then_join: differs [],
        cpython_says ["turn=4 run=first", "turn=4 run=main",
            "turn=4 event=main-joined-done-8", "turn=4 run=second"];
    /// A task cancelled before its first step: its body never runs, not even a try
    /// that would catch the cancel; it ends cancelled with one request.
    cancel_before_first_step: differs [],
        cpython_says ["turn=1 event=cancel-True", "turn=2 run=guarded",
            "turn=3 event=task-cancelled-True-cancelling-1", "turns=4"];
    /// A cancel before a task's last step ends it cancelled; cancel of a finished task
    /// is refused and counts nothing; wait_for on a task that swallows the cancel
    /// returns the task's value.
    cancel_finishing_task: differs [WaitForReleasesAWaiter],
        cpython_says ["turn=4 event=finisher-cancelled-True",
            "turn=4 event=cancel-cancelled-False-cancelling-1",
            "turn=7 event=cancel-returned-False-cancelling-0",
            "turn=14 event=wait_for-returned-kept-cancelling-1"];
    /// An event set then cleared still wakes its waiter; a semaphore's released unit
    /// goes to the queued waiter, not back to the releaser; wait_for re-checks after
    /// every notify; an aborted barrier breaks its waiting and later parties.
    primitives_probed: differs [],
        cpython_says ["turn=3 event=event-waiter-woke-set-False",
            "turn=5 event=released-locked-True-value-0", "turn=6 event=waiter-acquired",
            "turn=7 event=releaser-acquired-again", "turn=10 event=cond-waiter-saw-2",
            "turn=12 event=c-passed-2", "turn=13 event=b-passed-1",
            "turn=15 event=c-broken", "turn=16 event=late-broken"];
    /// A group's child fails after the body ended, or while another child awaits in
    /// its cleanup: what the group waits for, and what it raises.
    taskgroup_late_failures: differs [],
        cpython_says ["turn=5 run=_on_task_done", "turn=6 event=b-cancelled",
            "turn=8 event=after-body-raised-ExceptionGroup[ValueError(a)]-cancelling-1",
            "turn=14 event=d-cleanup-ends",
            "turn=16 event=in-finally-raised-ExceptionGroup[ValueError(c)]-cancelling-1"];
    /// timeout(0): the scope expires through call_soon; a yielding body is cancelled
    /// at its yield, a waiting one a turn after the expiry.
    timeout_zero: differs [],
        cpython_says ["turn=2 run=_on_timeout", "turn=2 event=yielding-body-timed-out",
            "turn=3 run=_on_timeout", "turn=4 event=waiting-body-timed-out"];
    /// A queue's woken getter or putter does not own the item or the room: main's
    /// get_nowait or put_nowait in the same step takes it, and the waiter waits again.
    queue_newcomer_wins: differs [],
        cpython_says ["turn=2 event=main-took-x", "turn=3 run=getter",
            "turn=4 event=getter-got-y", "turn=7 run=putter", "turn=8 event=putter-put",
            "turn=9 event=left-p"];
    /// A gather child that cancels itself: collected, its cancel is in the list and
    /// the awaiting task is not cancelled; not collected, the gather raises it.
    gather_child_cancelled: differs [GatherDoneCallbackHop],
        cpython_says ["turn=4 run=_done_callback", "turn=5 event=collected-cancelled-7-cancelling-0",
            "turn=9 event=raised-cancelled(gave up)-cancelling-0",
            "turn=10 event=main-went-on"];
    /// wait wakes the awaiting task only when its return_when holds: after the last
    /// task for ALL_COMPLETED, after the failure for FIRST_EXCEPTION.
    wait_wakes_when_ready: differs [WaitDoneCallbackHop],
        cpython_says ["turn=5 run=_on_completion", "turn=6 event=all-done-2-pending-0",
            "turn=10 run=_on_completion", "turn=11 event=first-exception-done-2-pending-1",
            "turn=13 event=wait-of-nothing-refused"];
    /// The deadline's cancel and the body's result in one turn: the cancel comes first,
    /// and the scope times out though the future holds its value.
    timeout_meets_a_result: differs [],
        cpython_says ["turn=2 run=setter", "turn=2 run=_on_timeout",
            "turn=3 event=timed-out-future-done-True"];
    /// notify_all wakes three waiters; the first holds the lock across a yield, and
    /// the others take it back one after the other.
    condition_notify_all_lock: differs [],
        cpython_says ["turn=3 event=a-has-lock", "turn=5 event=b-has-lock",
            "turn=7 event=c-has-lock", "turn=8 event=c-releases"];
    /// A timer cancelled after it came due, by one due in the same turn: skipped, and
    /// the count of cancelled timers does not move.
    timer_cancelled_when_due: differs [],
        cpython_says ["turn=2 event=first-cancelled-second-scheduled=0-cancelled=0-True",
            "turn=2 run=last", "turn=3 event=main-resumed-scheduled=0-cancelled=0"];
}
// ANCHOR_END: scenarios

/// The oneloop side of each scenario: the same program as `tests/asyncio/<name>.py`.
mod oneloop {
    use std::cell::Cell;
    use std::future::{Future, poll_fn};
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    use std::pin::Pin;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, mpsc};
    use std::task::{Context, Poll, Waker};
    use std::thread;
    use std::time::Duration;

    use oneloop_core::{Driver, EventLoop, LoopError, Runner, gather, run_with, yield_now};
    use oneloop_future::{OneShot, Wait};
    use oneloop_io::Io;
    use oneloop_offload::{LoopHandle, to_thread};
    use oneloop_timers::{LoopTimers, TimedOut, Timers, block_for, real_time_loop, sleep, timeout};

    use super::truth::{Recorder, current};

    /// `loop.call_soon(callback)` from inside the loop, under the Python function's name.
    fn call_soon(name: &'static str, callback: impl FnOnce() + 'static) {
        current().call_soon_named(name, callback);
    }

    /// A connected pair of Unix sockets: the loop's end, non-blocking and shared, and
    /// the peer's (Python's `socket.socketpair()` with `ours.setblocking(False)`).
    fn socket_pair() -> (Rc<UnixStream>, UnixStream) {
        let (ours, peer) = UnixStream::pair().expect("a socket pair");
        ours.set_nonblocking(true).expect("non-blocking");
        (Rc::new(ours), peer)
    }

    /// A callback that records its own name as an event.
    fn named(rec: &Rc<Recorder>, name: &'static str) -> impl FnOnce() + 'static {
        let rec = Rc::clone(rec);
        move || rec.event(name)
    }

    /// The frame of a scenario that is one `main`: the recorder observes `event_loop`,
    /// which runs `main` (given its own handle on the recorder) to the end, then closes
    /// (recording `turns=N`); Python's `loop.run_until_complete(main())` then
    /// `loop.close()`. Any loop will do: the scenario picks the layers it needs.
    fn run_main<D: Driver, F: Future<Output = ()> + 'static>(
        rec: &Rc<Recorder>,
        mut event_loop: EventLoop<D>,
        main: impl FnOnce(Rc<Recorder>) -> F,
    ) {
        rec.attach(event_loop.core());
        event_loop
            .run_until_complete(main(Rc::clone(rec)))
            .expect("main finishes");
        event_loop.close();
    }

    /// Python's `run_until_complete(main())`, with main a task of stage 9 (the later
    /// stages' scenarios use it).
    fn run_task_main<F: Future<Output = Result<(), oneloop_cancel::Error>> + 'static>(
        rec: &Rc<Recorder>,
        main: impl FnOnce(Rc<Recorder>) -> F,
    ) {
        let (future, task) = oneloop_cancel::task_future("main", main(Rc::clone(rec)));
        run_main(rec, oneloop_timers::virtual_time_loop(), |_| future);
        assert_eq!(task.try_result(), Some(Ok(())), "main ends well");
    }

    /// `await asyncio.sleep(0)`, in a task of stage 9.
    async fn bare_yield() -> Result<(), oneloop_cancel::Error> {
        oneloop_cancel::sleep(Duration::ZERO).await
    }

    /// A Python bool as Python prints it.
    fn py(value: bool) -> &'static str {
        if value { "True" } else { "False" }
    }

    /// A cancel's message as Python's `error.args[0]` prints it.
    fn message(error: &oneloop_cancel::Error) -> String {
        match error {
            oneloop_cancel::Error::Cancelled(Some(message)) => message.clone(),
            oneloop_cancel::Error::Cancelled(None) => "None".to_owned(),
            other => other.to_string(),
        }
    }

    pub fn call_soon_fifo(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        event_loop.call_soon_named("first", named(rec, "first"));
        event_loop.call_soon_named("second", named(rec, "second"));
        let third = named(rec, "third");
        event_loop.call_soon_named("third", move || {
            third();
            current().stop();
        });
        event_loop.run_forever().expect("third stops the loop");
        event_loop.close();
    }

    pub fn callback_queues_callback(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        let (a, c) = (named(rec, "a"), named(rec, "c"));
        event_loop.call_soon_named("a", move || {
            a();
            call_soon("c", move || {
                c();
                current().stop();
            });
        });
        let (b, d) = (named(rec, "b"), named(rec, "d"));
        event_loop.call_soon_named("b", move || {
            b();
            call_soon("d", d);
        });
        event_loop.run_forever().expect("c stops the loop");
        event_loop.close();
    }

    pub fn two_hop_wakeup(rec: &Rc<Recorder>) {
        run_main(rec, EventLoop::new(), |rec| async move {
            let future = OneShot::<u32, ()>::new();
            let (setter, on_set) = (future.clone(), Rc::clone(&rec));
            call_soon("setter", move || {
                on_set.event("set-result");
                setter.set_result(1).expect("set once");
            });
            rec.event("main-awaits");
            let value = future.wait().await.expect("the setter sets it");
            rec.event(format!("main-resumed-with-{value}"));
        });
    }

    pub fn complete_future_no_turn(rec: &Rc<Recorder>) {
        run_main(rec, EventLoop::new(), |rec| async move {
            let future = OneShot::<u32, ()>::new();
            future.set_result(3).expect("set once");
            rec.event("before-await");
            let value = future.wait().await.expect("already set");
            rec.event(format!("after-await-{value}"));
        });
    }

    async fn inner(rec: Rc<Recorder>) -> u32 {
        rec.event("inner");
        1
    }

    async fn middle(rec: Rc<Recorder>) -> u32 {
        rec.event("middle");
        inner(rec).await + 1
    }

    async fn outer(rec: Rc<Recorder>) -> u32 {
        rec.event("outer");
        middle(rec).await + 1
    }

    pub fn nested_awaits(rec: &Rc<Recorder>) {
        run_main(rec, EventLoop::new(), |rec| async move {
            let value = outer(Rc::clone(&rec)).await;
            rec.event(format!("main-got-{value}"));
        });
    }

    pub fn task_join_one_hop(rec: &Rc<Recorder>) {
        run_main(rec, EventLoop::new(), |rec| async move {
            let in_child = Rc::clone(&rec);
            let task = current().spawn_named("child", async move {
                in_child.event("child-step-1");
                yield_now().await;
                in_child.event("child-returns");
                7
            });
            rec.event("main-awaits-child");
            let value = task.await.expect("the child does not panic");
            rec.event(format!("main-joined-{value}"));
        });
    }

    pub fn gather_three_children(rec: &Rc<Recorder>) {
        run_main(rec, EventLoop::new(), |rec| async move {
            rec.event("main-gathers");
            let children = (1..=3).map(|n| {
                let rec = Rc::clone(&rec);
                async move {
                    rec.event(format!("child-{n}-step-1"));
                    yield_now().await;
                    rec.event(format!("child-{n}-step-2"));
                    n
                }
            });
            let results = gather(children).await.expect("no child panics");
            let joined: Vec<String> = results.iter().map(u32::to_string).collect();
            rec.event(format!("main-resumed-{}", joined.join("-")));
        });
    }

    pub fn gather_10_vs_1000(rec: &Rc<Recorder>) {
        for count in [10, 1000] {
            rec.section(&format!("gather-{count}"));
            run_main(rec, EventLoop::new(), |rec| async move {
                let children = (0..count).map(|n| async move {
                    yield_now().await;
                    n
                });
                let results = gather(children).await.expect("no child panics");
                rec.event(format!("gathered-{}", results.len()));
            });
        }
    }

    pub fn take_turns(rec: &Rc<Recorder>) {
        for yielding in [true, false] {
            rec.section(if yielding { "yielding" } else { "not-yielding" });
            run_main(rec, EventLoop::new(), |rec| async move {
                let [a, b] = ["A", "B"].map(|name| {
                    let rec = Rc::clone(&rec);
                    current().spawn_named(name, async move {
                        for step in 0..3 {
                            rec.event(format!("{name}{step}"));
                            if yielding {
                                yield_now().await;
                            }
                        }
                    })
                });
                a.await.expect("A does not panic");
                b.await.expect("B does not panic");
            });
        }
    }

    /// Records `spin` and queues itself again, as the Python `spin` does.
    fn spin(rec: Rc<Recorder>) {
        rec.event("spin");
        call_soon("spin", move || spin(rec));
    }

    pub fn self_requeue(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        let spinner = Rc::clone(rec);
        event_loop.call_soon_named("spin", move || spin(spinner));
        let rec = Rc::clone(rec);
        event_loop
            .run_until_complete(async move {
                for step in 0..3 {
                    rec.event(format!("main-{step}"));
                    yield_now().await;
                }
                rec.event("main-done");
            })
            .expect("main finishes though spin never stops");
        event_loop.close();
    }

    pub fn empty_run(rec: &Rc<Recorder>) {
        run_with(|event_loop| rec.attach(event_loop.core()), async {}).expect("main finishes");
    }

    pub fn runner_reused(rec: &Rc<Recorder>) {
        let mut runner = Runner::new();
        rec.attach(runner.event_loop().core());
        for returned in ["first-run-returned", "second-run-returned"] {
            let main_rec = Rc::clone(rec);
            runner
                .run(async move { main_rec.event("main-runs") })
                .expect("main finishes");
            rec.event(returned);
        }
        runner.close();
    }

    pub fn stop_from_callback(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        let (stop, later) = (named(rec, "stop"), named(rec, "later"));
        event_loop.call_soon_named("stopper", move || {
            stop();
            current().stop();
            call_soon("later", move || {
                later();
                current().stop();
            });
        });
        event_loop.call_soon_named("same_turn", named(rec, "same-turn"));
        event_loop.run_forever().expect("stopper stops the loop");
        rec.event("run_forever-returned");
        event_loop.run_forever().expect("later stops the loop");
        event_loop.close();
    }

    pub fn callback_left_by_last_turn(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        let (late_rec, later) = (Rc::clone(rec), named(rec, "later"));
        let first_rec = Rc::clone(rec);
        event_loop
            .run_until_complete(async move {
                first_rec.event("main-first");
                call_soon("late", move || {
                    late_rec.event("late");
                    call_soon("later", later);
                });
            })
            .expect("the first main finishes");
        rec.event("first-run-returned");
        let second_rec = Rc::clone(rec);
        event_loop
            .run_until_complete(async move { second_rec.event("main-second") })
            .expect("the second main finishes");
        event_loop.close();
    }

    pub fn stale_stop_callback(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        event_loop.core().stop();
        let main_rec = Rc::clone(rec);
        let value = event_loop
            .run_until_complete(async move {
                main_rec.event("main");
                7
            })
            .expect("main ends in the one turn");
        rec.event(format!("run_until_complete-returned-{value}"));
        let (a, b) = (named(rec, "a"), named(rec, "b"));
        event_loop.call_soon_named("a", move || {
            a();
            call_soon("b", move || {
                b();
                current().stop();
            });
        });
        event_loop
            .run_forever()
            .expect("the stale stop callback stops it");
        rec.event("run_forever-returned");
        event_loop.run_forever().expect("b stops the loop");
        event_loop.close();
    }

    pub fn stop_before_run(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        let (first, second) = (named(rec, "first"), named(rec, "second"));
        event_loop.call_soon_named("first", move || {
            first();
            call_soon("second", move || {
                second();
                current().stop();
                current().stop();
            });
        });
        event_loop.core().stop();
        event_loop.run_forever().expect("stopped before it ran");
        rec.event("run_forever-returned");
        event_loop.run_forever().expect("second stops the loop");
        rec.event("run_forever-returned-again");
        event_loop.close();
    }

    pub fn stopped_before_complete(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        let future = OneShot::<u32, ()>::new();
        let (main_rec, main_future) = (Rc::clone(rec), future.clone());
        let outcome = event_loop.run_until_complete(async move {
            main_rec.event("main-waits");
            let stop_rec = Rc::clone(&main_rec);
            call_soon("stopper", move || {
                stop_rec.event("stop");
                current().stop();
            });
            let value = main_future.wait().await.expect("the setter sets it");
            main_rec.event(format!("main-got-{value}"));
            current().stop();
        });
        match outcome {
            Err(LoopError::StoppedBeforeComplete) => rec.event("raised-stopped-before-complete"),
            other => rec.event(format!("raised-{other:?}")),
        }
        let set_rec = Rc::clone(rec);
        event_loop.call_soon_named("setter", move || {
            set_rec.event("set");
            future.set_result(7).expect("set once");
        });
        event_loop.run_forever().expect("main stops the loop");
        rec.event("run_forever-returned");
        event_loop.close();
    }

    pub fn raising_callback(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        rec.report_exceptions(event_loop.core());
        let (bad, next_turn) = (named(rec, "bad"), named(rec, "next-turn"));
        event_loop.call_soon_named("bad", move || {
            bad();
            call_soon("next_turn", move || {
                next_turn();
                current().stop();
            });
            panic!("oops");
        });
        event_loop.call_soon_named("good", named(rec, "good"));
        event_loop.run_forever().expect("next_turn stops the loop");
        event_loop.close();
    }

    pub fn main_raises(rec: &Rc<Recorder>) {
        let mut event_loop = rec.event_loop();
        rec.report_exceptions(event_loop.core());
        let main_rec = Rc::clone(rec);
        let outcome = event_loop.run_until_complete(async move {
            yield_now().await;
            main_rec.event("main-raises");
            panic!("oops");
        });
        match outcome {
            Err(LoopError::MainFailed(oneloop_task::JoinError::Panicked { message })) => {
                rec.event(format!("run_until_complete-raised-{message}"));
            }
            other => rec.event(format!("run_until_complete-gave-{other:?}")),
        }
        event_loop.close();
    }

    pub fn task_exception_never_retrieved(rec: &Rc<Recorder>) {
        let event_loop = EventLoop::new();
        let reports = Rc::clone(rec);
        event_loop.core().set_exception_handler(move |report| {
            if report.message == oneloop_task::NEVER_RETRIEVED {
                reports.event(format!("report-never-retrieved-{}", report.panic));
            } else {
                reports.event(format!("report-{}", report.message));
            }
        });
        run_main(rec, event_loop, |rec| async move {
            // The join handle is dropped at once: no one will retrieve the panic.
            drop(current().spawn_named("failing", async {
                yield_now().await;
                panic!("oops");
            }));
            rec.event("spawned-and-dropped");
            for _ in 0..3 {
                yield_now().await;
            }
            rec.event("main-done");
        });
    }

    /// Records an event when dropped: the Rust place for a `finally` block.
    struct Cleanup(Rc<Recorder>, &'static str);

    impl Drop for Cleanup {
        fn drop(&mut self) {
            self.0.event(self.1);
        }
    }

    pub fn run_drops_leftover(rec: &Rc<Recorder>) {
        let main_rec = Rc::clone(rec);
        run_with(|event_loop| rec.attach(event_loop.core()), async move {
            let in_leftover = Rc::clone(&main_rec);
            drop(current().spawn_named("leftover", async move {
                in_leftover.event("leftover-waits");
                let _cleanup = Cleanup(Rc::clone(&in_leftover), "leftover-cleanup");
                // Never completed, like the Python side's `create_future()`.
                let never = OneShot::<(), ()>::new();
                let _ = never.wait().await;
            }));
            yield_now().await;
            main_rec.event("main-returns");
        })
        .expect("main finishes");
    }

    // -----------------------------------------------------------------------------------
    // Stage 5: timers.
    // -----------------------------------------------------------------------------------

    /// `len(loop._scheduled)` and `loop._timer_cancelled_count`, from the timer layer's
    /// public counters.
    fn counts() -> String {
        let timers = Timers::current().expect("a loop with a timer layer is running");
        format!(
            "scheduled={}-cancelled={}",
            timers.scheduled(),
            timers.cancelled()
        )
    }

    /// Runs `callback` when dropped: the Rust place for a `finally` block.
    struct OnDrop<F: FnMut()>(F);

    impl<F: FnMut()> Drop for OnDrop<F> {
        fn drop(&mut self) {
            (self.0)();
        }
    }

    pub fn call_later_zero(rec: &Rc<Recorder>) {
        // Neither section waits: the loop never parks with a non-zero timeout.
        rec.section("before-the-loop-runs");
        let mut event_loop = real_time_loop();
        rec.attach(event_loop.core());
        let later = named(rec, "later");
        event_loop
            .core()
            .timers()
            .call_later_named(Duration::ZERO, "later", move || {
                later();
                current().stop();
            });
        event_loop.call_soon_named("soon", named(rec, "soon"));
        event_loop.run_forever().expect("later stops the loop");
        event_loop.close();

        rec.section("from-a-callback");
        let mut event_loop = real_time_loop();
        rec.attach(event_loop.core());
        let (starter, soon, later) = (
            named(rec, "starter"),
            named(rec, "soon"),
            named(rec, "later"),
        );
        event_loop.call_soon_named("starter", move || {
            starter();
            let timers = Timers::current().expect("a timer layer");
            timers.call_later_named(Duration::ZERO, "later", move || {
                later();
                current().stop();
            });
            call_soon("soon", soon);
        });
        event_loop.run_forever().expect("later stops the loop");
        event_loop.close();
    }

    pub fn equal_deadlines(rec: &Rc<Recorder>) {
        const TIES: usize = 5;
        const NAMES: [&str; TIES] = ["tie_0", "tie_1", "tie_2", "tie_3", "tie_4"];
        run_main(rec, real_time_loop(), |rec| async move {
            let timers = Timers::current().expect("a timer layer");
            let all_ran = OneShot::<(), ()>::new();
            let ran = Rc::new(Cell::new(0));
            // The deadline is the time now: due at the next turn's step 5, no wait.
            let when = timers.time();
            for (number, name) in NAMES.into_iter().enumerate() {
                let (rec, ran, all_ran) = (Rc::clone(&rec), Rc::clone(&ran), all_ran.clone());
                timers.call_at_named(when, name, move || {
                    rec.event(format!("tie-{number}"));
                    ran.set(ran.get() + 1);
                    if ran.get() == TIES {
                        all_ran.set_result(()).expect("set once");
                    }
                });
            }
            rec.event("scheduled");
            all_ran.wait().await.expect("the last tie sets it");
            rec.event("main-resumed");
        });
    }

    pub fn due_pass_keeps_cancel_count(rec: &Rc<Recorder>) {
        run_main(rec, real_time_loop(), |rec| async move {
            let timers = Timers::current().expect("a timer layer");
            // Deadlines already past, whenever the loop's clock began: a second before
            // now, or its first nanoseconds. Every timer comes due in the next turn.
            let past = timers.time().saturating_sub(Duration::from_secs(1));
            let handles: Vec<_> = (0..311u64)
                .map(|n| timers.call_at_named(past + Duration::from_nanos(n), "<lambda>", || {}))
                .collect();
            for handle in &handles[1..151] {
                handle.cancel();
            }
            rec.event(format!("due-{}", counts()));
            sleep(Duration::ZERO).await;
            rec.event(format!("after-due-pass-{}", counts()));
            let start = timers.time() + Duration::from_secs(3600);
            let later: Vec<_> = (0..110u64)
                .map(|n| timers.call_at_named(start + Duration::from_secs(n), "<lambda>", || {}))
                .collect();
            later[50].cancel();
            rec.event(format!("later-{}", counts()));
            sleep(Duration::ZERO).await;
            rec.event(format!("after-sweep-{}", counts()));
        });
    }

    pub fn sweep_edges(rec: &Rc<Recorder>) {
        for (count, cancelled) in [(100, 51), (101, 51), (102, 51), (102, 52)] {
            rec.section(&format!("{count}-timers-{cancelled}-cancelled"));
            run_main(rec, real_time_loop(), |rec| async move {
                let timers = Timers::current().expect("a timer layer");
                let start = timers.time() + Duration::from_secs(3600);
                let handles: Vec<_> = (0..count)
                    .map(|n| timers.call_at(start + Duration::from_secs(n), || {}))
                    .collect();
                // Never the first: the head stays live, so no pop from the head.
                for handle in &handles[1..=cancelled] {
                    handle.cancel();
                }
                rec.event(format!("before-{}", counts()));
                sleep(Duration::ZERO).await;
                rec.event(format!("after-{}", counts()));
            });
        }
    }

    pub fn stop_from_timer(rec: &Rc<Recorder>) {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        rec.attach(event_loop.core());
        let timers = event_loop.core().timers();
        // Two seconds in, so that a second in the past is a time of its own.
        timers.block_for(Duration::from_secs(2));
        let now = timers.time();
        let (first, soon, third) = (
            named(rec, "first-stops"),
            named(rec, "soon"),
            named(rec, "third"),
        );
        timers.call_at_named(now, "second", named(rec, "second"));
        timers.call_at_named(now - Duration::from_secs(1), "first", move || {
            first();
            current().stop();
            call_soon("soon", soon);
        });
        timers.call_at_named(now + Duration::from_millis(300), "third", move || {
            third();
            current().stop();
        });
        event_loop.run_forever().expect("first stops the loop");
        rec.event("run_forever-returned");
        event_loop.run_forever().expect("third stops the loop");
        event_loop.close();
    }

    pub fn timer_due_mid_turn(rec: &Rc<Recorder>) {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        rec.attach(event_loop.core());
        let (first_rec, soon, timer) = (Rc::clone(rec), named(rec, "soon"), named(rec, "timer"));
        event_loop.call_soon_named("first", move || {
            let timers = Timers::current().expect("a timer layer");
            let start = timers.time();
            timers.call_later_named(Duration::from_millis(100), "timer", move || {
                timer();
                current().stop();
            });
            // The virtual clock's stand-in for the 0.3 s block of the Python side.
            timers.block_for(Duration::from_millis(300));
            let moved = timers.time() - start >= Duration::from_millis(300);
            first_rec.event(format!(
                "first-time-moved-{}",
                if moved { "True" } else { "False" }
            ));
            call_soon("soon", soon);
        });
        event_loop.call_soon_named("second", named(rec, "second"));
        event_loop.run_forever().expect("timer stops the loop");
        event_loop.close();
    }

    /// Classifies each park's timeout as `select_skips_cancelled_head.py` classifies
    /// the selector's: zero, none, long (over 0.5 s) or short.
    #[derive(Default)]
    struct ParkTimeouts(std::cell::RefCell<Vec<&'static str>>);

    impl oneloop_core::Observer for ParkTimeouts {
        fn turn_ended(&self, _turn: u64, park: &oneloop_core::ParkReport, _handles: usize) {
            let class = match park.timeout {
                None => "none",
                Some(Duration::ZERO) => "zero",
                Some(timeout) if timeout > Duration::from_millis(900) => "long",
                Some(_) => "short",
            };
            self.0.borrow_mut().push(class);
        }
    }

    pub fn select_skips_cancelled_head(rec: &Rc<Recorder>) {
        // Virtual time: the park jumps to the deadline; its timeout is still reported.
        let mut event_loop = oneloop_timers::virtual_time_loop();
        rec.attach(event_loop.core());
        let timeouts = Rc::new(ParkTimeouts::default());
        event_loop
            .core()
            .add_observer(Rc::clone(&timeouts) as Rc<dyn oneloop_core::Observer>);
        let main_rec = Rc::clone(rec);
        event_loop
            .run_until_complete(async move {
                let timers = Timers::current().expect("a timer layer");
                let done = OneShot::<(), ()>::new();
                let setter = done.clone();
                let early = timers.call_later_named(Duration::from_millis(200), "<lambda>", || {});
                timers.call_later_named(Duration::from_millis(1600), "late", move || {
                    setter.set_result(()).expect("set once");
                });
                early.cancel();
                done.wait().await.expect("late sets it");
                main_rec.event("main-resumed");
            })
            .expect("main finishes");
        rec.event(format!("timeouts-{}", timeouts.0.borrow().join("-")));
        event_loop.close();
    }

    /// A task's future that ends early, dropping `inner`, once `cancel` is settled:
    /// oneloop has no `Task.cancel`, so this is how a task is told to stop, and the
    /// drop is the cancellation.
    struct UntilCancelled<F> {
        cancel: Wait<(), ()>,
        inner: Option<Pin<Box<F>>>,
    }

    impl<F: Future> Future for UntilCancelled<F> {
        type Output = Option<F::Output>;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            let this = &mut *self;
            if Pin::new(&mut this.cancel).poll(cx).is_ready() {
                this.inner = None;
                return Poll::Ready(None);
            }
            let inner = this.inner.as_mut().expect("not polled after it finished");
            inner.as_mut().poll(cx).map(Some)
        }
    }

    pub fn cancelled_sleep(rec: &Rc<Recorder>) {
        run_main(rec, real_time_loop(), |rec| async move {
            let cancel = OneShot::<(), ()>::new();
            let in_sleeper = Rc::clone(&rec);
            let sleeper = UntilCancelled {
                cancel: cancel.wait(),
                inner: Some(Box::pin(async move {
                    let on_end = Rc::clone(&in_sleeper);
                    // Declared first, dropped last: after the sleep cancelled its
                    // timer, as the Python `finally` runs after the sleep's own.
                    let _ends = OnDrop(move || on_end.event(format!("sleeper-ends-{}", counts())));
                    in_sleeper.event("sleeper-sleeps");
                    sleep(Duration::from_secs(10)).await;
                })),
            };
            let task = current().spawn_named("sleeper", sleeper);
            sleep(Duration::ZERO).await;
            rec.event(format!("cancelling-{}", counts()));
            cancel.cancel();
            let outcome = task.await.expect("the sleeper does not panic");
            assert!(outcome.is_none(), "the sleeper was stopped, not finished");
            rec.event(format!("main-resumed-{}", counts()));
        });
    }

    pub fn timeout_sleep(rec: &Rc<Recorder>) {
        // The only scenario of this stage that waits for real time (0.01 s): on epoll,
        // as CPython's loop is, so the park ends at the deadline and not earlier
        // (both round the timeout up to whole milliseconds).
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            rec.event("main-starts");
            let on_end = Rc::clone(&rec);
            let nap = async move {
                let _ends = OnDrop(move || on_end.event("nap-ends"));
                sleep(Duration::from_secs(10)).await;
            };
            match timeout(Duration::from_millis(10), nap).await {
                Ok(()) => rec.event("nap-finished"),
                Err(TimedOut { .. }) => rec.event(format!("main-timed-out-{}", counts())),
            }
        });
    }

    pub fn debug_slow_handles(rec: &Rc<Recorder>) {
        const THRESHOLD: Duration = Duration::from_millis(600);
        const BLOCK: Duration = Duration::from_millis(650);
        let event_loop = oneloop_timers::virtual_time_loop();
        let timers = event_loop.core().timers();
        timers.set_debug(true);
        timers.set_slow_callback_duration(THRESHOLD);
        let slow = Rc::clone(rec);
        event_loop.core().set_exception_handler(move |report| {
            // "Executing <KIND LABEL> took ...": the kind as the angle brackets begin.
            let kind = report
                .message
                .strip_prefix("Executing <")
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or("not-a-slow-report");
            slow.event(format!("slow-{kind}-{}", report.label));
        });
        run_main(rec, event_loop, |rec| async move {
            let block_rec = Rc::clone(&rec);
            call_soon("block_cb", move || {
                block_rec.event("block_cb");
                block_for(BLOCK);
            });
            call_soon("quick", named(&rec, "quick"));
            let alarm_rec = Rc::clone(&rec);
            Timers::current().expect("a timer layer").call_later_named(
                Duration::ZERO,
                "alarm",
                move || {
                    alarm_rec.event("alarm");
                    block_for(BLOCK);
                },
            );
            block_for(BLOCK);
            yield_now().await;
            rec.event("main-done");
        });
    }

    pub fn soon_sleep_zero_later(rec: &Rc<Recorder>) {
        run_main(rec, real_time_loop(), |rec| async move {
            let ran = Rc::new(std::cell::RefCell::new(Vec::<&str>::new()));
            let (later_ran, later_rec) = (Rc::clone(&ran), Rc::clone(&rec));
            Timers::current().expect("a timer layer").call_later_named(
                Duration::ZERO,
                "later",
                move || {
                    later_ran.borrow_mut().push("later");
                    later_rec.event(format!("later-after-{}", later_ran.borrow().join("-")));
                },
            );
            let soon_ran = Rc::clone(&ran);
            call_soon("soon", move || soon_ran.borrow_mut().push("soon"));
            sleep(Duration::ZERO).await;
            rec.event(format!("main-after-{}", ran.borrow().join("-")));
            ran.borrow_mut().push("main");
            sleep(Duration::ZERO).await;
            rec.event(format!("main-again-after-{}", ran.borrow().join("-")));
        });
    }

    pub fn sleep_zero_yields(rec: &Rc<Recorder>) {
        for with_sleep in [true, false] {
            rec.section(if with_sleep {
                "sleep-zero"
            } else {
                "yield-now"
            });
            run_main(rec, real_time_loop(), |rec| async move {
                for step in 0..3 {
                    rec.event(format!("main-{step}"));
                    if with_sleep {
                        sleep(Duration::ZERO).await;
                    } else {
                        yield_now().await;
                    }
                    let timers = Timers::current().expect("a timer layer");
                    rec.event(format!("timers-{}", timers.scheduled()));
                }
                rec.event("main-done");
            });
        }
    }

    // -----------------------------------------------------------------------------------
    // Stage 6: I/O.
    // -----------------------------------------------------------------------------------

    pub fn two_sockets_one_turn(rec: &Rc<Recorder>) {
        for write_order in [["b", "a"], ["a", "b"]] {
            rec.section(&format!("write-{}", write_order.join("-then-")));
            let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
            run_main(rec, event_loop, |rec| async move {
                let io = Io::current().expect("an I/O layer");
                // One connected pair per name: the loop reads `ours`, the test
                // writes to `peer`.
                let pairs = ["a", "b"].map(|name| {
                    let (ours, peer) = socket_pair();
                    (name, ours, peer)
                });
                let both_read = OneShot::<(), ()>::new();
                let read = Rc::new(Cell::new(0));
                for (name, ours, _) in &pairs {
                    // Registered in the order A, B.
                    let label = if *name == "a" { "on_a" } else { "on_b" };
                    let (rec, io_in, socket) = (Rc::clone(&rec), Rc::clone(&io), Rc::clone(ours));
                    let (read, both_read, name) = (Rc::clone(&read), both_read.clone(), *name);
                    io.add_reader_named(&**ours, label, move || {
                        let mut buf = [0; 64];
                        let n = (&*socket).read(&mut buf).expect("data is there");
                        let data = String::from_utf8_lossy(&buf[..n]).into_owned();
                        rec.event(format!("{name}-read-{data}"));
                        io_in.remove_reader(&*socket);
                        read.set(read.get() + 1);
                        if read.get() == 2 {
                            both_read.set_result(()).expect("set once");
                        }
                    })
                    .expect("the reader is registered");
                }
                // Both writes before main suspends: both sockets are readable
                // before the next select.
                for name in write_order {
                    let (_, _, peer) = pairs
                        .iter()
                        .find(|(pair, _, _)| *pair == name)
                        .expect("a or b");
                    (&*peer)
                        .write_all(name.repeat(2).as_bytes())
                        .expect("the peer takes two bytes");
                }
                rec.event(format!("written-{}", write_order.join("-")));
                both_read.wait().await.expect("the second reader sets it");
                rec.event("main-resumed");
            });
        }
    }

    pub fn reader_one_byte_per_call(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let io = Io::current().expect("an I/O layer");
            let (ours, mut peer) = socket_pair();
            let all_read = OneShot::<(), ()>::new();
            let (in_reader, io_in, socket, done) = (
                Rc::clone(&rec),
                Rc::clone(&io),
                Rc::clone(&ours),
                all_read.clone(),
            );
            io.add_reader_named(&*ours, "on_data", move || {
                let mut byte = [0; 1];
                (&*socket).read_exact(&mut byte).expect("a byte is there");
                in_reader.event(format!("read-{}", char::from(byte[0])));
                if byte == *b"c" {
                    io_in.remove_reader(&*socket);
                    done.set_result(()).expect("set once");
                }
            })
            .expect("the reader is registered");
            peer.write_all(b"abc").expect("the peer takes three bytes");
            rec.event("written-abc");
            all_read.wait().await.expect("the reader sets it");
            rec.event("main-resumed");
        });
    }

    pub fn replace_queued_reader(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let io = Io::current().expect("an I/O layer");
            // One connected pair per name: the loop reads `ours`, the test writes to
            // `peer`.
            let [a, b, c] = ["a", "b", "c"].map(|_| socket_pair());
            let done = OneShot::<(), ()>::new();
            let read_one = |socket: &UnixStream| {
                let mut byte = [0; 1];
                (&*socket).read_exact(&mut byte).expect("a byte is there");
                char::from(byte[0])
            };
            let (a_rec, a_io, a_ours) = (Rc::clone(&rec), Rc::clone(&io), Rc::clone(&a.0));
            let (b_ours, c_ours) = (Rc::clone(&b.0), Rc::clone(&c.0));
            let done_in = done.clone();
            io.add_reader_named(&*a.0, "on_a", move || {
                a_rec.event(format!("a-read-{}", read_one(&a_ours)));
                a_io.remove_reader(&*a_ours);
                let (new_rec, new_io, socket) =
                    (Rc::clone(&a_rec), Rc::clone(&a_io), Rc::clone(&b_ours));
                let done = done_in.clone();
                a_io.add_reader_named(&*b_ours, "on_b_new", move || {
                    new_rec.event(format!("new-b-read-{}", read_one(&socket)));
                    new_io.remove_reader(&*socket);
                    done.set_result(()).expect("set once");
                })
                .expect("the new reader is registered");
                let removed = a_io.remove_reader(&*c_ours);
                a_rec.event(format!("removed-c-{}", py(removed)));
            })
            .expect("a's reader is registered");
            let old_b = Rc::clone(&rec);
            io.add_reader_named(&*b.0, "on_b", move || old_b.event("old-b-ran"))
                .expect("b's reader is registered");
            let c_rec = Rc::clone(&rec);
            io.add_reader_named(&*c.0, "on_c", move || c_rec.event("c-ran"))
                .expect("c's reader is registered");
            for (name, (_, peer)) in [("a", &a), ("b", &b), ("c", &c)] {
                (&*peer)
                    .write_all(name.as_bytes())
                    .expect("the peer takes a byte");
            }
            rec.event("written-a-b-c");
            done.wait().await.expect("the new reader sets it");
            rec.event("main-resumed");
        });
    }

    pub fn sock_recv_waits(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let (ours, peer) = UnixStream::pair().expect("a socket pair");
            ours.set_nonblocking(true).expect("non-blocking");
            let r = Rc::clone(&rec);
            call_soon("writer", move || {
                r.event("writes-x");
                (&peer).write_all(b"x").expect("the peer takes a byte");
            });
            // `sock_recv` as oneloop spells it: try the read, and on `WouldBlock` wait
            // for readiness and try again.
            let mut buf = [0; 16];
            let n = loop {
                match (&ours).read(&mut buf) {
                    Ok(n) => break n,
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                        oneloop_io::readable(&ours).await.expect("the fd registers");
                    }
                    Err(error) => panic!("the read fails: {error}"),
                }
            };
            rec.event(format!("main-got-{}", String::from_utf8_lossy(&buf[..n])));
        });
    }

    /// A connected TCP pair on 127.0.0.1, made before the loop runs (the scripts'
    /// `tcp_pair`): our end non-blocking for the loop, the peer's blocking.
    fn tcp_pair() -> (oneloop_io::TcpStream, std::net::TcpStream) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
        let ours = std::net::TcpStream::connect(listener.local_addr().expect("its address"))
            .expect("a connection");
        let (peer, _) = listener.accept().expect("the connection is accepted");
        let ours = oneloop_io::TcpStream::from_std(ours).expect("non-blocking");
        (ours, peer)
    }

    pub fn stream_readline_waits(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let (ours, peer) = tcp_pair();
            let peer = Rc::new(peer);
            let (mut reader, mut writer) = ours.into_streams();
            rec.event("opened");
            let (r, sender) = (Rc::clone(&rec), Rc::clone(&peer));
            call_soon("send_ping", move || {
                r.event("peer-sends-ping");
                (&*sender).write_all(b"ping\n").expect("the peer sends");
            });
            let line = reader
                .read_line()
                .await
                .expect("a line")
                .expect("not at eof");
            rec.event(format!("got-{}", line.trim()));
            writer.write(b"pong\n").expect("the write is taken");
            writer.drain().await.expect("nothing failed");
            rec.event("drained");
            let mut buf = [0; 16];
            let n = (&*peer).read(&mut buf).expect("the peer reads");
            rec.event(format!(
                "peer-got-{}",
                String::from_utf8_lossy(&buf[..n]).trim()
            ));
        });
    }

    pub fn stream_line_in_two_parts(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let (ours, peer) = tcp_pair();
            let peer = Rc::new(peer);
            let (mut reader, _writer) = ours.into_streams();
            rec.event("opened");
            let (r, sender) = (Rc::clone(&rec), Rc::clone(&peer));
            call_soon("first_half", move || {
                r.event("peer-sends-pi");
                (&*sender).write_all(b"pi").expect("the peer sends");
                Timers::current().expect("a timer layer").call_later_named(
                    Duration::from_millis(500),
                    "second_half",
                    move || {
                        r.event("peer-sends-ng");
                        (&*sender).write_all(b"ng\n").expect("the peer sends");
                    },
                );
            });
            let line = reader
                .read_line()
                .await
                .expect("a line")
                .expect("not at eof");
            rec.event(format!("got-{}", line.trim()));
        });
    }

    pub fn stream_eof_after_a_line(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let (ours, peer) = tcp_pair();
            let (mut reader, _writer) = ours.into_streams();
            rec.event("opened");
            let r = Rc::clone(&rec);
            call_soon("send_and_close", move || {
                r.event("peer-sends-and-closes");
                (&peer).write_all(b"a\nb").expect("the peer sends");
                peer.shutdown(std::net::Shutdown::Write)
                    .expect("the peer closes its writing half");
            });
            let line = reader
                .read_line()
                .await
                .expect("a line")
                .expect("not at eof");
            rec.event(format!("line-{}", line.trim()));
            // asyncio's readline returns the cut line; oneloop's read_line says it was cut.
            match reader.read_line().await {
                Err(oneloop_io::StreamError::Incomplete { partial, .. }) => {
                    rec.event(format!("partial-{}", String::from_utf8_lossy(&partial)));
                }
                other => panic!("the cut line is Incomplete, not {other:?}"),
            }
            match reader.read_line().await {
                Ok(None) => rec.event("eof"),
                other => panic!("a clean end of file, not {other:?}"),
            }
        });
    }

    pub fn io_then_timers_in_a_turn(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let io = Io::current().expect("an I/O layer");
            let (ours, mut peer) = socket_pair();
            let done = OneShot::<(), ()>::new();
            let (timer_rec, timer_done) = (Rc::clone(&rec), done.clone());
            Timers::current().expect("a timer layer").call_later_named(
                Duration::ZERO,
                "timer",
                move || {
                    timer_rec.event("timer");
                    timer_done.set_result(()).expect("set once");
                },
            );
            call_soon("soon", named(&rec, "soon"));
            let (r, io_in, socket) = (Rc::clone(&rec), Rc::clone(&io), Rc::clone(&ours));
            io.add_reader_named(&*ours, "on_read", move || {
                let mut byte = [0; 1];
                (&*socket).read_exact(&mut byte).expect("a byte is there");
                r.event(format!("read-{}", char::from(byte[0])));
                io_in.remove_reader(&*socket);
            })
            .expect("the reader is registered");
            peer.write_all(b"x").expect("the peer takes a byte");
            rec.event("queued-all-three");
            done.wait().await.expect("the timer sets it");
            rec.event("main-resumed");
        });
    }

    pub fn reader_at_eof(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let io = Io::current().expect("an I/O layer");
            let (ours, mut peer) = socket_pair();
            let done = OneShot::<(), ()>::new();
            let eofs = Rc::new(Cell::new(0));
            let (r, io_in, socket, done_in) = (
                Rc::clone(&rec),
                Rc::clone(&io),
                Rc::clone(&ours),
                done.clone(),
            );
            io.add_reader_named(&*ours, "on_data", move || {
                let mut buf = [0; 16];
                let n = (&*socket)
                    .read(&mut buf)
                    .expect("readable: data or the end");
                if n > 0 {
                    r.event(format!("read-{}", String::from_utf8_lossy(&buf[..n])));
                    return;
                }
                eofs.set(eofs.get() + 1);
                r.event(format!("eof-{}", eofs.get()));
                if eofs.get() == 3 {
                    io_in.remove_reader(&*socket);
                    done_in.set_result(()).expect("set once");
                }
            })
            .expect("the reader is registered");
            peer.write_all(b"x").expect("the peer takes a byte");
            drop(peer);
            rec.event("peer-closed");
            done.wait().await.expect("the reader sets it");
            rec.event("main-resumed");
        });
    }

    pub fn reader_and_writer_one_socket(rec: &Rc<Recorder>) {
        let event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        run_main(rec, event_loop, |rec| async move {
            let io = Io::current().expect("an I/O layer");
            let (ours, mut peer) = socket_pair();
            let done = OneShot::<(), ()>::new();
            let calls = Rc::new(Cell::new(0));
            let (w_rec, w_io, w_socket, w_done) = (
                Rc::clone(&rec),
                Rc::clone(&io),
                Rc::clone(&ours),
                done.clone(),
            );
            // The writer first; it writes nothing, so the socket stays writable.
            io.add_writer_named(&*ours, "on_write", move || {
                calls.set(calls.get() + 1);
                w_rec.event(format!("writable-{}", calls.get()));
                if calls.get() == 3 {
                    w_io.remove_writer(&*w_socket);
                    w_done.set_result(()).expect("set once");
                }
            })
            .expect("the writer is registered");
            let (r_rec, r_io, r_socket) = (Rc::clone(&rec), Rc::clone(&io), Rc::clone(&ours));
            io.add_reader_named(&*ours, "on_read", move || {
                let mut byte = [0; 1];
                (&*r_socket).read_exact(&mut byte).expect("a byte is there");
                r_rec.event(format!("read-{}", char::from(byte[0])));
                r_io.remove_reader(&*r_socket);
            })
            .expect("the reader is registered");
            peer.write_all(b"x").expect("the peer takes a byte");
            rec.event("written-x");
            done.wait().await.expect("the writer sets it");
            rec.event("main-resumed");
        });
    }

    // -----------------------------------------------------------------------------------
    // Stage 7: offload.
    // -----------------------------------------------------------------------------------

    pub fn threadsafe_wakes_idle_loop(rec: &Rc<Recorder>) {
        let event_loop = oneloop_offload::new_event_loop().expect("epoll and eventfd");
        run_main(rec, event_loop, |rec| async move {
            let handle = LoopHandle::current().expect("an offload layer");
            let woken = Arc::new(AtomicBool::new(false));
            // The handshake: main's waker goes to the worker as main suspends.
            let (go, waker_for_worker) = mpsc::channel::<Waker>();
            let worker_woken = Arc::clone(&woken);
            let worker = thread::spawn(move || {
                let waker = waker_for_worker.recv().expect("main sends its waker");
                handle
                    .call_soon_threadsafe_named("wake", move || {
                        worker_woken.store(true, Ordering::SeqCst);
                        waker.wake();
                    })
                    .expect("the loop is open");
            });
            rec.event("main-waits");
            let mut go = Some(go);
            poll_fn(|cx| {
                if woken.load(Ordering::SeqCst) {
                    return Poll::Ready(());
                }
                if let Some(go) = go.take() {
                    go.send(cx.waker().clone())
                        .expect("the worker waits for it");
                }
                Poll::Pending
            })
            .await;
            rec.event("main-resumed-woken");
            worker.join().expect("the worker does not panic");
        });
    }

    pub fn to_thread_result(rec: &Rc<Recorder>) {
        // `oneloop_offload::run`, spelled out so the recorder sees the first turn.
        let mut runner =
            Runner::with_driver(oneloop_offload::new_driver().expect("epoll and eventfd"));
        let core = Rc::clone(runner.event_loop().core());
        rec.attach(&core);
        let rec = Rc::clone(rec);
        let value = runner
            .run(async move {
                rec.event("main-offloads");
                let value = to_thread(|| (0..=100u32).sum::<u32>())
                    .await
                    .expect("no panic");
                rec.event(format!("main-resumed-{value}"));
                value
            })
            .expect("main finishes");
        assert_eq!(value, 5050);
        runner.close();
    }

    pub fn to_thread_raises(rec: &Rc<Recorder>) {
        // `oneloop_offload::run`, spelled out so the recorder sees the first turn.
        let mut runner =
            Runner::with_driver(oneloop_offload::new_driver().expect("epoll and eventfd"));
        let core = Rc::clone(runner.event_loop().core());
        rec.attach(&core);
        let rec = Rc::clone(rec);
        runner
            .run(async move {
                rec.event("main-offloads");
                match to_thread(|| -> u32 { panic!("boom") }).await {
                    Err(oneloop_offload::OffloadError::Panicked(message)) => {
                        rec.event(format!("main-caught-{message}"));
                    }
                    other => rec.event(format!("main-got-{other:?}")),
                }
            })
            .expect("main finishes");
        runner.close();
    }

    pub fn threadsafe_among_call_soon(rec: &Rc<Recorder>) {
        let event_loop = oneloop_offload::new_event_loop().expect("epoll and eventfd");
        run_main(rec, event_loop, |rec| async move {
            let done = OneShot::<(), ()>::new();
            call_soon("local_0", named(&rec, "local_0"));
            let (timer_rec, timer_done) = (Rc::clone(&rec), done.clone());
            Timers::current().expect("a timer layer").call_later_named(
                Duration::ZERO,
                "timer",
                move || {
                    timer_rec.event("timer");
                    timer_done.set_result(()).expect("set once");
                },
            );
            // The thread makes its two calls, in this order, and is joined before
            // `local_1` is queued. Their callbacks record nothing: a callback made on
            // another thread cannot hold the recorder, and the handle's line is enough.
            let handle = LoopHandle::current().expect("an offload layer");
            let own = handle.clone();
            thread::spawn(move || {
                for name in ["from_thread_0", "from_thread_1"] {
                    handle
                        .call_soon_threadsafe_named(name, || {})
                        .expect("the loop is open");
                }
            })
            .join()
            .expect("the worker does not panic");
            rec.event("thread-joined");
            call_soon("local_1", named(&rec, "local_1"));
            // On the loop's own thread: through the inbox all the same.
            own.call_soon_threadsafe_named("from_thread_2", || {})
                .expect("the loop is open");
            done.wait().await.expect("the timer sets it");
            rec.event("main-resumed");
        });
    }

    // Stage 9: each main is a task of `oneloop_cancel`, so that it can be cancelled and
    // can run cancellation points.
    mod stage9 {

        use std::rc::Rc;
        use std::time::Duration;

        use oneloop_cancel::{
            Error, ReturnWhen, current, gather, shield, sleep, spawn_named, task_group, timeout,
            wait, yield_now,
        };

        use super::super::truth::Recorder;
        use super::{py, run_task_main};

        fn ms(n: u64) -> Duration {
            Duration::from_millis(n)
        }

        pub fn cancel_sleeping_task(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let task = spawn_named("sleeper", async move {
                    r.event("sleeper-sleeps");
                    match sleep(Duration::from_secs(10)).await {
                        Err(Error::Cancelled(message)) => {
                            r.event(format!(
                                "sleeper-saw-{}",
                                message.clone().unwrap_or_default()
                            ));
                            sleep(ms(100)).await?;
                            r.event("sleeper-cleaned-up");
                            Err(Error::Cancelled(message))
                        }
                        other => other,
                    }
                });
                sleep(Duration::ZERO).await?;
                rec.event("cancelling");
                task.cancel(Some("stop"));
                if task.join().await.is_err() {
                    rec.event(format!("main-joined-cancelled-{}", py(task.is_cancelled())));
                }
                Ok(())
            });
        }

        pub fn cancel_catch_continue(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let task = spawn_named("stubborn", async move {
                    if sleep(Duration::from_secs(10)).await.is_err() {
                        r.event("stubborn-caught");
                    }
                    sleep(Duration::ZERO).await?;
                    r.event("stubborn-carried-on");
                    Ok(5)
                });
                sleep(Duration::ZERO).await?;
                task.cancel(None);
                let value = task.join().await?;
                rec.event(format!(
                    "main-got-{value}-cancelled-{}-cancelling-{}",
                    py(task.is_cancelled()),
                    task.cancelling()
                ));
                Ok(())
            });
        }

        pub fn cancel_awaiting_child(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let task = spawn_named("parent", async move {
                    let r2 = Rc::clone(&r);
                    let inner = spawn_named("child", async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        if slept.is_err() {
                            r2.event("child-cancelled");
                        }
                        slept
                    });
                    let joined = inner.join().await;
                    if joined.is_err() {
                        r.event(format!(
                            "parent-cancelled-child-{}",
                            py(inner.is_cancelled())
                        ));
                    }
                    joined
                });
                sleep(Duration::ZERO).await?;
                sleep(Duration::ZERO).await?;
                task.cancel(None);
                if task.join().await.is_err() {
                    rec.event("main-joined");
                }
                Ok(())
            });
        }

        pub fn shield_inner(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let task = Rc::new(spawn_named("inner", async move {
                    for _ in 0..4 {
                        yield_now().await?;
                    }
                    r.event("inner-done");
                    Ok("inner")
                }));
                let (r, t) = (Rc::clone(&rec), Rc::clone(&task));
                let waiter = spawn_named("outer", async move {
                    let shielded = shield(&t).await;
                    if shielded.is_err() {
                        r.event("outer-cancelled");
                    }
                    shielded
                });
                yield_now().await?;
                waiter.cancel(None);
                if waiter.join().await.is_err() {
                    rec.event("main-outer-cancelled");
                }
                let value = task.join().await?;
                rec.event(format!("main-got-{value}"));
                Ok(())
            });
        }

        pub fn shield_inner_ends(rec: &Rc<Recorder>) {
            for (section, cancel_inner) in [("inner-returns", false), ("inner-cancelled", true)] {
                rec.section(section);
                run_task_main(rec, |rec| async move {
                    let r = Rc::clone(&rec);
                    let task = Rc::new(spawn_named("inner", async move {
                        let slept = async {
                            yield_now().await?;
                            yield_now().await
                        };
                        if let Err(error) = slept.await {
                            r.event("inner-cancelled");
                            return Err(error);
                        }
                        r.event("inner-returns");
                        Ok("inner")
                    }));
                    let (r, t) = (Rc::clone(&rec), Rc::clone(&task));
                    let waiter = spawn_named("outer", async move {
                        let me = current().expect("outer is a task");
                        match shield(&t).await {
                            Ok(value) => {
                                r.event(format!("outer-got-{value}"));
                                Ok(value)
                            }
                            Err(error @ Error::Cancelled(_)) => {
                                r.event(format!(
                                    "outer-caught-cancel-{}-cancelling-{}",
                                    super::message(&error),
                                    me.cancelling()
                                ));
                                Ok("caught")
                            }
                            Err(other) => Err(other),
                        }
                    });
                    yield_now().await?;
                    if cancel_inner {
                        task.cancel(Some("stop"));
                    }
                    let value = waiter.join().await?;
                    rec.event(format!(
                        "main-joined-{value}-inner-cancelled-{}",
                        py(task.is_cancelled())
                    ));
                    Ok(())
                });
            }
        }

        pub fn uncancel_counts(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                let first = me.cancel(None);
                let second = me.cancel(None);
                rec.event(format!(
                    "requested-{}-{}-cancelling-{}",
                    py(first),
                    py(second),
                    me.cancelling()
                ));
                rec.event(format!("uncancel-{}", me.uncancel()));
                if sleep(Duration::ZERO).await.is_err() {
                    rec.event("delivered-at-await");
                }
                let (a, b) = (me.uncancel(), me.uncancel());
                rec.event(format!("uncancel-{a}-then-{b}"));
                Ok(())
            });
        }

        pub fn timeout_vs_outer_cancel(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let expiring = spawn_named("expiring", async move {
                    let timed = timeout(ms(100), sleep(Duration::from_secs(10))).await;
                    if timed == Err(Error::TimedOut) {
                        let me = current().expect("a task");
                        r.event(format!("timed-out-cancelling-{}", me.cancelling()));
                    }
                    Ok(())
                });
                expiring.join().await?;
                let r = Rc::clone(&rec);
                let guarded = spawn_named("guarded", async move {
                    let timed = timeout(ms(500), sleep(Duration::from_secs(10))).await;
                    match &timed {
                        Err(Error::TimedOut) => r.event("wrongly-timed-out"),
                        Err(Error::Cancelled(_)) => r.event("guarded-cancelled"),
                        _ => {}
                    }
                    timed
                });
                yield_now().await?;
                guarded.cancel(None);
                if guarded.join().await.is_err() {
                    rec.event("main-joined-guarded");
                }
                Ok(())
            });
        }

        pub fn timeout_after_caught_cancel(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                let scoped = |label: &'static str| {
                    let (r, me) = (Rc::clone(&rec), me.clone());
                    async move {
                        match timeout(ms(10), sleep(Duration::from_secs(10))).await {
                            Err(Error::TimedOut) => {
                                r.event(format!("{label}-timed-out-cancelling-{}", me.cancelling()))
                            }
                            Err(Error::Cancelled(_)) => {
                                r.event(format!("{label}-cancelled-cancelling-{}", me.cancelling()))
                            }
                            _ => {}
                        }
                    }
                };
                me.cancel(Some("early"));
                if let Err(error) = yield_now().await {
                    rec.event(format!(
                        "caught-{}-cancelling-{}",
                        super::message(&error),
                        me.cancelling()
                    ));
                }
                scoped("leftover").await;
                rec.event(format!("uncancel-{}", me.uncancel()));
                scoped("clean").await;
                Ok(())
            });
        }

        pub fn taskgroup_one_fails(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let grouped = task_group(|tg| async move {
                    let r2 = Rc::clone(&r);
                    tg.spawn("a", async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        if slept.is_err() {
                            r2.event("a-cancelled");
                        }
                        slept
                    })?;
                    tg.spawn("bad", async {
                        sleep(ms(100)).await?;
                        Err::<(), _>(Error::Failed("boom".into()))
                    })?;
                    let slept = sleep(Duration::from_secs(100)).await;
                    if slept.is_err() {
                        r.event("body-cancelled");
                    }
                    slept
                })
                .await;
                if let Err(Error::Group(errors)) = grouped {
                    let first = match &errors[0] {
                        Error::Failed(text) => text.clone(),
                        other => other.to_string(),
                    };
                    rec.event(format!("main-caught-{}-{first}", errors.len()));
                }
                Ok(())
            });
        }

        pub fn taskgroup_child_spawns_sibling(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let kept = Rc::new(std::cell::RefCell::new(None));
                let (r, keep) = (Rc::clone(&rec), Rc::clone(&kept));
                task_group(|tg| async move {
                    *keep.borrow_mut() = Some(tg.clone());
                    let (r2, group) = (Rc::clone(&r), tg.clone());
                    tg.spawn("first", async move {
                        yield_now().await?;
                        let r3 = Rc::clone(&r2);
                        group.spawn("late", async move {
                            yield_now().await?;
                            yield_now().await?;
                            r3.event("late-returns");
                            Ok(())
                        })?;
                        r2.event("first-spawned-late");
                        Ok(())
                    })?;
                    r.event("body-ends");
                    Ok(())
                })
                .await?;
                rec.event("group-exited");
                let tg = kept.borrow_mut().take().expect("the body kept it");
                let refused = tg.spawn("refused", async { Ok(()) });
                if let Err(Error::Misuse(message)) = refused {
                    rec.event(format!(
                        "refused-finished-{}",
                        py(message == oneloop_cancel::GROUP_FINISHED)
                    ));
                }
                Ok(())
            });
        }

        async fn waiting(rec: Rc<Recorder>, name: &'static str) -> Result<(), Error> {
            let slept = sleep(Duration::from_secs(10)).await;
            if slept.is_err() {
                rec.event(format!("{name}-cancelled"));
            }
            slept
        }

        pub fn taskgroup_nested(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let grouped = task_group(|tg| async move {
                    let r2 = Rc::clone(&r);
                    tg.spawn("inner-group", async move {
                        task_group(|inner| async move {
                            inner.spawn("failing", async {
                                sleep(ms(100)).await?;
                                Err::<(), _>(Error::Failed("inner".into()))
                            })?;
                            waiting(r2, "inner-body").await
                        })
                        .await
                    })?;
                    tg.spawn("outer-child", waiting(Rc::clone(&r), "outer-child"))?;
                    waiting(r, "outer-body").await
                })
                .await;
                if let Err(Error::Group(errors)) = grouped {
                    rec.event(format!("main-caught-{}", errors.len()));
                }
                Ok(())
            });
        }

        pub fn gather_return_exceptions(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let child = |yields: u64, fail: bool| async move {
                    for _ in 0..yields {
                        yield_now().await?;
                    }
                    if fail {
                        return Err(Error::Failed(format!("fail-{yields}")));
                    }
                    Ok(yields)
                };
                let results =
                    gather(vec![child(3, false), child(1, true), child(2, false)], true).await?;
                let shown: Vec<String> = results
                    .into_iter()
                    .map(|r| match r {
                        Ok(value) => value.to_string(),
                        Err(Error::Failed(text)) => text,
                        Err(other) => other.to_string(),
                    })
                    .collect();
                rec.event(format!("main-got-{}", shown.join("-")));
                Ok(())
            });
        }

        pub fn wait_first_completed(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let tasks: Vec<_> = [9u64, 1, 5]
                    .into_iter()
                    .map(|yields| {
                        spawn_named(&format!("c{yields}"), async move {
                            if yields == 1 {
                                yield_now().await?;
                            } else {
                                sleep(Duration::from_secs(yields)).await?;
                            }
                            Ok(yields)
                        })
                    })
                    .collect();
                let (done, pending) = wait(&tasks, ReturnWhen::FirstCompleted).await?;
                let first = tasks[done[0]].try_result().expect("done")?;
                rec.event(format!(
                    "main-done-{}-pending-{}-first-{first}",
                    done.len(),
                    pending.len()
                ));
                for task in &tasks {
                    task.cancel(None);
                }
                wait(&tasks, ReturnWhen::AllCompleted).await?;
                rec.event("main-cleaned-up");
                Ok(())
            });
        }
    }
    pub use stage9::*;

    /// Stage 9: wait_for, and run's cleanup asyncio's way.
    mod stage9_finish {
        use std::rc::Rc;
        use std::time::Duration;

        use oneloop_cancel::{
            Error, current, run_cancelling, sleep, spawn_named, task_future, wait_for, yield_now,
        };
        use oneloop_timers::virtual_time_loop;

        use super::super::truth::Recorder;
        use super::{py, run_main};

        pub fn wait_for_slow_task(rec: &Rc<Recorder>) {
            let main = {
                let rec = Rc::clone(rec);
                async move {
                    let r = Rc::clone(&rec);
                    let task = spawn_named("slow", async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        if slept.is_err() {
                            r.event("slow-saw-cancel");
                        }
                        slept.map(|()| "slow")
                    });
                    if wait_for(Duration::from_millis(100), task.join()).await
                        == Err(Error::TimedOut)
                    {
                        rec.event(format!(
                            "main-timed-out-task-cancelled-{}",
                            py(task.is_cancelled())
                        ));
                    }
                    Ok(())
                }
            };
            let (future, task) = task_future("main", main);
            run_main(rec, virtual_time_loop(), |_| future);
            assert_eq!(task.try_result(), Some(Ok(())), "main ends well");
        }

        pub fn run_cancels_leftovers(rec: &Rc<Recorder>) {
            let event_loop = virtual_time_loop();
            rec.attach(event_loop.core());
            let on_report = Rc::clone(rec);
            event_loop.core().set_exception_handler(move |report| {
                let text = report
                    .panic
                    .strip_prefix("failed: ")
                    .unwrap_or(&report.panic);
                on_report.event(format!("shutdown-failed-{}-{text}", report.label));
            });
            let main = {
                let rec = Rc::clone(rec);
                async move {
                    drop(spawn_named("spinning", async {
                        loop {
                            if yield_now().await.is_err() {
                                return Err::<(), _>(Error::Failed("cleanup failed".into()));
                            }
                        }
                    }));
                    let r = Rc::clone(&rec);
                    drop(spawn_named("sleeping", async move {
                        match sleep(Duration::from_secs(10)).await {
                            Err(cancel) => {
                                r.event("sleeping-saw-cancel");
                                yield_now().await.ok();
                                r.event("sleeping-cleaned-up");
                                Err(cancel)
                            }
                            Ok(()) => Ok(()),
                        }
                    }));
                    let me = current().expect("main is a task");
                    assert_eq!(me.name(), "main");
                    yield_now().await?;
                    rec.event("main-returns");
                    Ok(())
                }
            };
            let (main, shutdown) =
                run_cancelling(event_loop, Duration::from_secs(30), main).expect("the loop runs");
            assert_eq!(main, Ok(()), "main ends well");
            assert_eq!(shutdown.cancelled, ["sleeping"]);
            assert_eq!(shutdown.failed.len(), 1);
        }

        pub fn cancel_during_cleanup(rec: &Rc<Recorder>) {
            let main = {
                let rec = Rc::clone(rec);
                async move {
                    let r = Rc::clone(&rec);
                    let task = spawn_named("worker", async move {
                        match sleep(Duration::from_secs(10)).await {
                            Err(cancel) => {
                                r.event("worker-cleanup-starts");
                                // A cleanup that needs the loop.
                                match sleep(Duration::from_secs(10)).await {
                                    Ok(()) => r.event("worker-cleanup-done"),
                                    Err(_) => r.event("worker-cleanup-cut-short"),
                                }
                                Err::<(), _>(cancel)
                            }
                            Ok(()) => Ok(()),
                        }
                    });
                    yield_now().await?;
                    task.cancel(None);
                    yield_now().await?;
                    yield_now().await?;
                    task.cancel(None);
                    if task.join().await.is_err() {
                        rec.event(format!("main-joined-cancelled-{}", py(task.is_cancelled())));
                    }
                    Ok(())
                }
            };
            let (future, task) = task_future("main", main);
            run_main(rec, virtual_time_loop(), |_| future);
            assert_eq!(task.try_result(), Some(Ok(())), "main ends well");
        }
    }
    pub use stage9_finish::*;

    // Stage 10: shared state. Each main is a task of `oneloop_cancel` (stage 9), and the
    // primitives come from `oneloop_shared`.
    mod stage10 {
        use std::cell::Cell;

        use std::rc::Rc;

        use oneloop_cancel::{spawn_named, task_future};
        use oneloop_shared::{Event, Lock, Queue, Semaphore, TaskLocal};
        use oneloop_timers::virtual_time_loop;

        use super::super::truth::Recorder;
        use super::{bare_yield, py, run_main, run_task_main};

        fn lost_update(rec: &Rc<Recorder>, with_lock: bool) {
            run_task_main(rec, |rec| async move {
                let counter = Rc::new(Cell::new(0));
                let lock = Rc::new(Lock::new());
                let workers: Vec<_> = ["a", "b"]
                    .into_iter()
                    .map(|name| {
                        let (rec, counter, lock) =
                            (Rc::clone(&rec), Rc::clone(&counter), Rc::clone(&lock));
                        spawn_named(name, async move {
                            for _ in 0..3 {
                                if with_lock {
                                    lock.acquire().await?;
                                }
                                let seen = counter.get();
                                bare_yield().await?;
                                counter.set(seen + 1);
                                rec.event(format!("{name}-wrote-{}", counter.get()));
                                if with_lock {
                                    lock.release()?;
                                }
                            }
                            Ok(())
                        })
                    })
                    .collect();
                for worker in &workers {
                    worker.join().await?;
                }
                rec.event(format!("counter-{}-of-6", counter.get()));
                Ok(())
            });
        }

        pub fn lost_update_no_lock(rec: &Rc<Recorder>) {
            lost_update(rec, false);
        }

        pub fn lost_update_with_lock(rec: &Rc<Recorder>) {
            lost_update(rec, true);
        }

        pub fn lock_three_waiters(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let lock = Rc::new(Lock::new());
                lock.acquire().await?;
                let tasks: Vec<_> = ["a", "b", "c"]
                    .into_iter()
                    .map(|name| {
                        let (rec, lock) = (Rc::clone(&rec), Rc::clone(&lock));
                        spawn_named(name, async move {
                            lock.acquire().await?;
                            rec.event(format!("{name}-acquired"));
                            bare_yield().await?;
                            rec.event(format!("{name}-releases"));
                            lock.release()
                        })
                    })
                    .collect();
                bare_yield().await?;
                rec.event("main-releases");
                lock.release()?;
                lock.acquire().await?;
                rec.event("main-acquired-again");
                lock.release()?;
                for task in &tasks {
                    task.join().await?;
                }
                Ok(())
            });
        }

        pub fn lock_cancelled_waiter(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let lock = Rc::new(Lock::new());
                for (first, second, cancel_after_release) in [("a", "b", false), ("c", "d", true)] {
                    lock.acquire().await?;
                    let waiter = |name: &'static str| {
                        let (rec, lock) = (Rc::clone(&rec), Rc::clone(&lock));
                        spawn_named(name, async move {
                            if let Err(error) = lock.acquire().await {
                                rec.event(format!("{name}-cancelled"));
                                return Err(error);
                            }
                            rec.event(format!("{name}-acquired"));
                            lock.release()
                        })
                    };
                    let (a, b) = (waiter(first), waiter(second));
                    bare_yield().await?;
                    if cancel_after_release {
                        lock.release()?;
                        a.cancel(None);
                    } else {
                        a.cancel(None);
                        lock.release()?;
                    }
                    rec.event(format!("released-{first}-{second}"));
                    b.join().await?;
                    let _cancelled = a.join().await;
                    rec.event(format!("round-done-locked-{}", py(lock.locked())));
                }
                Ok(())
            });
        }

        pub fn event_wakes_all(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let event = Rc::new(Event::new());
                let tasks: Vec<_> = ["a", "b", "c"]
                    .into_iter()
                    .map(|name| {
                        let (rec, event) = (Rc::clone(&rec), Rc::clone(&event));
                        spawn_named(name, async move {
                            event.wait().await?;
                            rec.event(format!("{name}-woke"));
                            Ok(())
                        })
                    })
                    .collect();
                bare_yield().await?;
                rec.event("set");
                event.set();
                for task in &tasks {
                    task.join().await?;
                }
                event.wait().await?;
                rec.event("set-event-waited");
                Ok(())
            });
        }

        pub fn semaphore_limit_two(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let sem = Rc::new(Semaphore::new(2));
                let tasks: Vec<_> = ["a", "b", "c", "d"]
                    .into_iter()
                    .map(|name| {
                        let (rec, sem) = (Rc::clone(&rec), Rc::clone(&sem));
                        spawn_named(name, async move {
                            sem.acquire().await?;
                            rec.event(format!("{name}-in"));
                            bare_yield().await?;
                            bare_yield().await?;
                            rec.event(format!("{name}-out"));
                            sem.release();
                            Ok(())
                        })
                    })
                    .collect();
                for task in &tasks {
                    task.join().await?;
                }
                rec.event(format!("value-{}", sem.value()));
                Ok(())
            });
        }

        pub fn queue_maxsize_one(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(1));
                let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                let producer = spawn_named("producer", async move {
                    for item in 0..3 {
                        q.put(item).await?;
                        r.event(format!("put-{item}"));
                    }
                    Ok(())
                });
                let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                let consumer = spawn_named("consumer", async move {
                    for _ in 0..3 {
                        let item = q.get().await?;
                        r.event(format!("got-{item}"));
                    }
                    Ok(())
                });
                producer.join().await?;
                consumer.join().await?;
                Ok(())
            });
        }

        pub fn queue_join_task_done(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(0));
                queue.put_nowait("x")?;
                queue.put_nowait("y")?;
                let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                let worker = spawn_named("worker", async move {
                    for _ in 0..2 {
                        let item = q.get().await?;
                        bare_yield().await?;
                        r.event(format!("done-{item}"));
                        q.task_done()?;
                    }
                    Ok(())
                });
                queue.join().await?;
                rec.event("joined");
                if queue.task_done().is_err() {
                    rec.event("task-done-too-often");
                }
                worker.join().await?;
                Ok(())
            });
        }

        pub fn context_copied_at_create_task(rec: &Rc<Recorder>) {
            let request = Rc::new(TaskLocal::with_default("request", "none"));
            // main itself runs in a context of its own, as asyncio's main task does.
            let (future, task) = task_future(
                "main",
                oneloop_shared::Scoped::new(oneloop_shared::Context::copy_current(), {
                    let rec = Rc::clone(rec);
                    async move {
                        request.set("first");
                        let (r, req) = (Rc::clone(&rec), Rc::clone(&request));
                        let child = oneloop_shared::spawn_named("child", async move {
                            r.event(format!("child-sees-{}", req.get().unwrap_or("?")));
                            req.set("child");
                            bare_yield().await?;
                            r.event(format!("child-still-{}", req.get().unwrap_or("?")));
                            Ok(())
                        });
                        request.set("second");
                        child.join().await?;
                        rec.event(format!("parent-sees-{}", request.get().unwrap_or("?")));
                        Ok(())
                    }
                }),
            );
            run_main(rec, virtual_time_loop(), |_| future);
            assert_eq!(task.try_result(), Some(Ok(())), "main ends well");
        }
    }
    pub use stage10::*;
    // The asyncio names: done callbacks, and the loop's own timer methods.
    mod names {
        use std::rc::Rc;
        use std::time::Duration;

        use oneloop_core::{EventLoop, yield_now};
        use oneloop_future::OneShot;
        use oneloop_timers::prelude::TimerMethods;
        use oneloop_timers::real_time_loop;

        use super::super::truth::{Recorder, current};
        use super::{call_soon, named, run_main};

        pub fn done_callback_order(rec: &Rc<Recorder>) {
            run_main(rec, EventLoop::new(), |rec| async move {
                let in_child = Rc::clone(&rec);
                let task = current().spawn_named("child", async move {
                    in_child.event("child-returns");
                    7
                });
                let on_done = Rc::clone(&rec);
                task.add_done_callback(move |outcome| {
                    outcome.expect("the child does not panic");
                    on_done.event("done-7");
                });
                call_soon("soon", named(&rec, "soon"));
                yield_now().await;
                rec.event("main-resumed");
                yield_now().await;
                rec.event("main-ends");
            });
        }

        pub fn call_later_then_call_at(rec: &Rc<Recorder>) {
            run_main(rec, real_time_loop(), |rec| async move {
                let done = OneShot::<(), ()>::new();
                let core = current();
                let (later, setter) = (Rc::clone(&rec), done.clone());
                core.call_later(Duration::ZERO, move || {
                    later.event("later");
                    setter.set_result(()).expect("set once");
                });
                // The loop's clock started at zero when it was built: zero is past.
                core.call_at(Duration::ZERO, named(&rec, "at"));
                rec.event("scheduled");
                done.wait().await.expect("the later timer sets it");
                rec.event("main-resumed");
            });
        }
    }
    pub use names::*;

    pub fn sleep_tiny(rec: &Rc<Recorder>) {
        run_main(rec, real_time_loop(), |rec| async move {
            for step in 0..2 {
                sleep(Duration::from_micros(1)).await;
                let timers = Timers::current().expect("a timer layer");
                rec.event(format!("main-{step}-timers-{}", timers.scheduled()));
            }
            rec.event("main-done");
        });
    }

    pub fn timer_cancel_twice(rec: &Rc<Recorder>) {
        run_main(rec, real_time_loop(), |rec| async move {
            let timers = Timers::current().expect("a timer layer");
            let later = timers.time() + Duration::from_secs(3600);
            let first = timers.call_at_named(later, "ran", named(&rec, "ran"));
            let second =
                timers.call_at_named(later + Duration::from_secs(1), "ran", named(&rec, "ran"));
            let soon = timers.call_later_named(Duration::ZERO, "ran", named(&rec, "ran"));
            second.cancel();
            second.cancel();
            let py = |value: bool| if value { "True" } else { "False" };
            rec.event(format!(
                "cancelled-twice-{}-{}",
                counts(),
                py(second.is_cancelled())
            ));
            sleep(Duration::ZERO).await;
            sleep(Duration::ZERO).await;
            soon.cancel();
            rec.event(format!(
                "cancelled-after-run-{}-{}",
                counts(),
                py(soon.is_cancelled())
            ));
            first.cancel();
            rec.event(format!(
                "cancelled-head-{}-{}",
                counts(),
                py(first.is_cancelled())
            ));
            sleep(Duration::ZERO).await;
            rec.event(format!("after-turn-{}", counts()));
        });
    }

    // Stage 9's corners: second requests, timeouts and groups meeting an outer cancel.
    mod stage9_corners {
        use std::future::Future;
        use std::rc::Rc;
        use std::time::Duration;

        use std::pin::Pin;

        use oneloop_cancel::{
            AsCompleted, Error, TaskGroup, current, gather, sleep, spawn_named, task_group,
            timeout_scope, yield_now,
        };
        use oneloop_timers::Timers;

        use super::super::truth::Recorder;
        use super::{call_soon, message, named, py, run_task_main};

        /// How the task of `cancel_twice_messages` waits when the requests come.
        #[derive(Clone, Copy)]
        enum Wait {
            Sleeping,
            Bare,
            CancelsItself,
        }

        pub fn cancel_twice_messages(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                for (name, wait, yields) in [
                    ("sleeper", Wait::Sleeping, 1),
                    ("yielder", Wait::Bare, 1),
                    ("unstarted", Wait::Sleeping, 0),
                    ("itself", Wait::CancelsItself, 1),
                ] {
                    let r = Rc::clone(&rec);
                    let task = spawn_named(name, async move {
                        let waited = match wait {
                            Wait::Sleeping => sleep(Duration::from_secs(10)).await,
                            Wait::Bare => yield_now().await,
                            Wait::CancelsItself => {
                                current().expect("a task").cancel(Some("own"));
                                call_soon("soon", named(&r, "soon"));
                                sleep(Duration::from_secs(10)).await
                            }
                        };
                        match waited {
                            Ok(()) => r.event(format!("{name}-not-cancelled")),
                            Err(error) => {
                                let me = current().expect("a task");
                                r.event(format!(
                                    "{name}-saw-{}-cancelling-{}",
                                    message(&error),
                                    me.cancelling()
                                ));
                            }
                        }
                        yield_now().await?;
                        r.event(format!("{name}-carried-on"));
                        Ok(())
                    });
                    for _ in 0..yields {
                        yield_now().await?;
                    }
                    if matches!(wait, Wait::CancelsItself) {
                        task.cancel(Some("outer"));
                    } else {
                        task.cancel(Some("first"));
                        task.cancel(Some("second"));
                    }
                    if let Err(error) = task.join().await {
                        rec.event(format!("{name}-ended-cancelled-{}", message(&error)));
                    }
                    let again = task.cancel(Some("late"));
                    rec.event(format!(
                        "{name}-done-cancel-{}-cancelling-{}",
                        py(again),
                        task.cancelling()
                    ));
                }
                Ok(())
            });
        }

        pub fn timeout_meets_outer_cancel(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                for name in ["outer-first", "deadline-first"] {
                    let when = oneloop_timers::time() + Duration::from_millis(100);
                    let r = Rc::clone(&rec);
                    let task = Rc::new(spawn_named(name, async move {
                        let me = current().expect("a task");
                        let mut expired = None;
                        let timed = timeout_scope(Some(when), |scope| {
                            expired = Some(scope.clone());
                            sleep(Duration::from_secs(10))
                        })
                        .await;
                        match &timed {
                            Err(Error::TimedOut) => r.event(format!("{name}-timed-out")),
                            Err(error @ Error::Cancelled(_)) => {
                                let scope = expired.expect("the body ran");
                                r.event(format!(
                                    "{name}-cancelled-{}-expired-{}-cancelling-{}",
                                    message(error),
                                    py(scope.expired()),
                                    me.cancelling()
                                ));
                            }
                            _ => {}
                        }
                        timed
                    }));
                    if name == "deadline-first" {
                        yield_now().await?;
                    }
                    let target = Rc::clone(&task);
                    Timers::current().expect("a timer loop").call_at_named(
                        when,
                        "outer_cancel",
                        move || {
                            target.cancel(Some("outer"));
                        },
                    );
                    if task.join().await.is_err() {
                        rec.event(format!(
                            "{name}-joined-cancelled-{}",
                            py(task.is_cancelled())
                        ));
                    }
                }
                Ok(())
            });
        }

        pub fn timeout_reschedule(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let mut kept = None;
                let r = Rc::clone(&rec);
                let past = timeout_scope(Some(Duration::from_secs(10)), |scope| {
                    kept = Some(scope.clone());
                    async move {
                        // Now is not after now: the deadline is already past.
                        scope.reschedule(Some(oneloop_timers::time()))?;
                        r.event("moved-to-the-past");
                        sleep(Duration::from_secs(10)).await
                    }
                })
                .await;
                let scope = kept.take().expect("the body ran");
                if past == Err(Error::TimedOut) {
                    rec.event(format!("past-timed-out-expired-{}", py(scope.expired())));
                }

                let r = Rc::clone(&rec);
                timeout_scope(
                    Some(oneloop_timers::time() + Duration::from_millis(10)),
                    |scope| {
                        kept = Some(scope.clone());
                        async move {
                            if sleep(Duration::from_secs(10)).await.is_err() {
                                r.event(format!("caught-expired-{}", py(scope.expired())));
                            }
                            let later = oneloop_timers::time() + Duration::from_secs(10);
                            if scope.reschedule(Some(later)).is_err() {
                                r.event("refused-while-expiring");
                            }
                            Ok(())
                        }
                    },
                )
                .await?;
                let scope = kept.take().expect("the body ran");
                rec.event(format!(
                    "swallowed-scope-ended-expired-{}",
                    py(scope.expired())
                ));
                if scope.reschedule(None).is_err() {
                    rec.event("refused-after-exit");
                }

                timeout_scope(Some(Duration::from_secs(10)), |scope| {
                    kept = Some(scope);
                    yield_now()
                })
                .await?;
                let scope = kept.take().expect("the body ran");
                if scope.reschedule(None).is_err() {
                    rec.event(format!(
                        "refused-after-clean-exit-expired-{}",
                        py(scope.expired())
                    ));
                }
                Ok(())
            });
        }

        pub fn taskgroup_abort_order(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let members = Rc::clone(&rec);
                let grouped = task_group(|tg| async move {
                    for n in 0..8 {
                        let r = Rc::clone(&members);
                        let name = format!("member_{n}");
                        tg.spawn(&name.clone(), async move {
                            let slept = sleep(Duration::from_secs(10)).await;
                            if slept.is_err() {
                                r.event(format!("{name}-cancelled"));
                            }
                            slept
                        })?;
                    }
                    tg.spawn("failing", fail_after(1, "boom"))?;
                    sleep(Duration::from_secs(10)).await
                })
                .await;
                if let Err(Error::Group(errors)) = grouped {
                    rec.event(format!("main-caught-{}", errors.len()));
                }
                Ok(())
            });
        }

        async fn gathered_child(
            rec: Rc<Recorder>,
            case: &'static str,
            name: &'static str,
            cleanup: u32,
            swallower: &'static str,
        ) -> Result<&'static str, Error> {
            if let Err(cancel) = sleep(Duration::from_secs(10)).await {
                rec.event(format!("{case}-{name}-cancelled"));
                for _ in 0..cleanup {
                    yield_now().await.ok();
                }
                if name != swallower {
                    return Err(cancel);
                }
            }
            Ok(name)
        }

        pub fn gather_cancelled(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                for (case, collect, cleanups, swallower) in [
                    ("collect", true, [0, 2, 1], "b"),
                    ("first", false, [0, 0, 0], "b"),
                    ("last-returns", true, [0, 0, 0], "c"),
                ] {
                    let r = Rc::clone(&rec);
                    let task = spawn_named(case, async move {
                        let children = ["a", "b", "c"]
                            .into_iter()
                            .zip(cleanups)
                            .map(|(name, cleanup)| {
                                gathered_child(Rc::clone(&r), case, name, cleanup, swallower)
                            })
                            .collect();
                        let gathered = gather(children, collect).await;
                        match &gathered {
                            Ok(_) => r.event(format!("{case}-got-results")),
                            Err(error) => {
                                r.event(format!("{case}-cancelled-{}", message(error)));
                            }
                        }
                        gathered.map(|_| ())
                    });
                    yield_now().await?;
                    yield_now().await?;
                    task.cancel(Some("stop"));
                    if task.join().await.is_err() {
                        rec.event(format!(
                            "{case}-joined-cancelled-{}",
                            py(task.is_cancelled())
                        ));
                    }
                }
                Ok(())
            });
        }

        pub fn as_completed_order(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let child = |name: &'static str| {
                    let r = Rc::clone(&rec);
                    spawn_named(name, async move {
                        yield_now().await?;
                        yield_now().await?;
                        r.event(format!("{name}-done"));
                        Ok(name)
                    })
                };
                let t1 = child("t1");
                let t0 = child("t0");
                let mut completed = AsCompleted::new(vec![t0, t1]);
                let mut order = Vec::new();
                while let Some(next) = completed.next().await {
                    let (_, result) = next?;
                    let name = result?;
                    rec.event(format!("main-got-{name}"));
                    order.push(name);
                }
                rec.event(format!("main-got-{}", order.join("-")));
                Ok(())
            });
        }

        pub fn wait_on_done_tasks(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let t = spawn_named("quick", async { Ok(1) });
                yield_now().await?;
                yield_now().await?;
                rec.event(format!("quick-done-{}", py(t.is_done())));
                let tasks = [t];
                let (done, pending) =
                    oneloop_cancel::wait(&tasks, oneloop_cancel::ReturnWhen::AllCompleted).await?;
                rec.event(format!("wait-returned-{}-{}", done.len(), pending.len()));
                let [t] = tasks;
                let mut completed = AsCompleted::new(vec![t]);
                while let Some(next) = completed.next().await {
                    let (_, value) = next?;
                    rec.event(format!("as-completed-{}", value?));
                }
                Ok(())
            });
        }

        pub fn nested_timeouts(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                for order in ["outer-armed-first", "inner-armed-first"] {
                    let when = oneloop_timers::time() + Duration::from_millis(100);
                    let outer_first = order == "outer-armed-first";
                    let (mut outer_scope, mut inner_scope) = (None, None);
                    let r = Rc::clone(&rec);
                    let me_inside = me.clone();
                    let timed = timeout_scope(outer_first.then_some(when), |outer| {
                        outer_scope = Some(outer.clone());
                        let inner_slot = &mut inner_scope;
                        async move {
                            let inner = timeout_scope(Some(when), |inner| {
                                *inner_slot = Some(inner);
                                async move {
                                    if !outer_first {
                                        outer.reschedule(Some(when))?;
                                    }
                                    sleep(Duration::from_secs(10)).await
                                }
                            })
                            .await;
                            match &inner {
                                Err(Error::TimedOut) => r.event(format!("{order}-inner-timed-out")),
                                Err(Error::Cancelled(_)) => r.event(format!(
                                    "{order}-inner-let-it-through-cancelling-{}",
                                    me_inside.cancelling()
                                )),
                                _ => {}
                            }
                            inner
                        }
                    })
                    .await;
                    if timed == Err(Error::TimedOut) {
                        let (outer, inner) = (
                            outer_scope.expect("the body ran"),
                            inner_scope.expect("the body ran"),
                        );
                        rec.event(format!(
                            "{order}-outer-timed-out-cancelling-{}-expired-{}-{}",
                            me.cancelling(),
                            py(outer.expired()),
                            py(inner.expired())
                        ));
                    }
                }
                Ok(())
            });
        }

        pub fn taskgroup_body_fails(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                let r = Rc::clone(&rec);
                let grouped = task_group(|tg| async move {
                    let r2 = Rc::clone(&r);
                    tg.spawn("noisy", async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        if slept.is_err() {
                            r2.event("noisy-cancelled");
                            return Err(Error::Failed("noisy".to_owned()));
                        }
                        slept
                    })?;
                    yield_now().await?;
                    r.event("body-raises");
                    Err::<(), _>(Error::Failed("body".to_owned()))
                })
                .await;
                if let Err(error) = grouped {
                    rec.event(format!(
                        "raised-{}-cancelling-{}",
                        show(&error),
                        me.cancelling()
                    ));
                }
                Ok(())
            });
        }

        pub fn timeout_around_taskgroup(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                for (label, fails) in [("quiet", false), ("cleanup-fails", true)] {
                    let r = Rc::clone(&rec);
                    let child = async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        if slept.is_err() {
                            r.event(format!("{label}-child-cancelled"));
                            if fails {
                                return Err(Error::Failed(label.to_owned()));
                            }
                        }
                        slept
                    };
                    let grouped = task_group(|tg| async move {
                        tg.spawn("child", child)?;
                        sleep(Duration::from_secs(10)).await
                    });
                    let raised =
                        match oneloop_cancel::timeout(Duration::from_millis(10), grouped).await {
                            Ok(_) => "nothing".to_owned(),
                            Err(Error::TimedOut) => "TimeoutError".to_owned(),
                            Err(error) => show(&error),
                        };
                    rec.event(format!(
                        "{label}-raised-{raised}-cancelling-{}",
                        me.cancelling()
                    ));
                }
                Ok(())
            });
        }

        /// An error as the Python side prints it: `ValueError(a)`, `CancelledError(m)`,
        /// `ExceptionGroup[..]`.
        /// An error as the scripts print it (`shown` in Python).
        pub(super) fn show(error: &Error) -> String {
            match error {
                Error::Failed(text) => format!("ValueError({text})"),
                Error::Cancelled(_) => format!("CancelledError({})", message(error)),
                Error::Group(errors) => {
                    let inner: Vec<String> = errors.iter().map(show).collect();
                    format!("ExceptionGroup[{}]", inner.join(","))
                }
                other => other.to_string(),
            }
        }

        async fn fail_after(yields: u32, text: &str) -> Result<(), Error> {
            for _ in 0..yields {
                yield_now().await?;
            }
            Err(Error::Failed(text.to_owned()))
        }

        /// The body of one case of `taskgroup_corners`, given the group.
        type Body = fn(Rc<Recorder>, TaskGroup) -> Pin<Box<dyn Future<Output = Result<(), Error>>>>;

        fn two_fail(
            _: Rc<Recorder>,
            tg: TaskGroup,
        ) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
            Box::pin(async move {
                tg.spawn("task", fail_after(1, "a"))?;
                tg.spawn("task", fail_after(1, "b"))?;
                sleep(Duration::from_secs(10)).await
            })
        }

        fn fail_under_outer(
            _: Rc<Recorder>,
            tg: TaskGroup,
        ) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
            Box::pin(async move {
                tg.spawn("task", fail_after(0, "c"))?;
                sleep(Duration::from_secs(10)).await
            })
        }

        fn refused(
            rec: Rc<Recorder>,
            tg: TaskGroup,
        ) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
            Box::pin(async move {
                tg.spawn("task", fail_after(0, "d"))?;
                let slept = sleep(Duration::from_secs(10)).await;
                if slept.is_err() && tg.spawn("task", fail_after(0, "e")).is_err() {
                    rec.event("refused-new-task");
                }
                slept
            })
        }

        fn outer_cancel(
            _: Rc<Recorder>,
            tg: TaskGroup,
        ) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
            Box::pin(async move {
                tg.spawn("task", sleep(Duration::from_secs(10)))?;
                sleep(Duration::from_secs(10)).await
            })
        }

        fn body_swallows(
            rec: Rc<Recorder>,
            tg: TaskGroup,
        ) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
            Box::pin(async move {
                tg.spawn("task", fail_after(1, "f"))?;
                if sleep(Duration::from_secs(10)).await.is_err() {
                    rec.event("body-swallowed-the-cancel");
                }
                Ok(())
            })
        }

        pub fn taskgroup_corners(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let cases: [(&str, Body, Option<&str>); 5] = [
                    ("two-fail", two_fail, None),
                    ("fail-under-outer", fail_under_outer, Some("outer")),
                    ("refused", refused, None),
                    ("outer-cancel", outer_cancel, Some("outer")),
                    ("body-swallows", body_swallows, None),
                ];
                for (name, body, cancel) in cases {
                    let r = Rc::clone(&rec);
                    let task = spawn_named(name, async move {
                        let me = current().expect("a task");
                        let inner = Rc::clone(&r);
                        let grouped = task_group(|tg| body(inner, tg)).await;
                        if let Err(error) = &grouped {
                            r.event(format!(
                                "{name}-raised-{}-cancelling-{}",
                                show(error),
                                me.cancelling()
                            ));
                        }
                        match grouped {
                            Err(error @ Error::Cancelled(_)) => Err(error),
                            _ => Ok(()),
                        }
                    });
                    if let Some(message) = cancel {
                        yield_now().await?;
                        task.cancel(Some(message));
                    }
                    let _ended = task.join().await;
                    rec.event(format!(
                        "{name}-ended-cancelled-{}",
                        py(task.is_cancelled())
                    ));
                }
                Ok(())
            });
        }
    }
    pub use stage9_corners::*;

    // Stage 10's corners.
    mod stage10_corners {

        use std::rc::Rc;

        use oneloop_cancel::{Error, spawn_named};
        use oneloop_shared::{BoundedSemaphore, Condition, Lock, Queue, QueueError, Semaphore};

        use super::super::truth::Recorder;
        use super::{bare_yield, message, py, run_task_main};

        pub fn condition_cancelled(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                for name in ["waiting", "reacquiring", "twice"] {
                    let cond = Rc::new(Condition::new());
                    let (r, c) = (Rc::clone(&rec), Rc::clone(&cond));
                    let task = spawn_named(name, async move {
                        c.acquire().await?;
                        let waited = c.wait().await;
                        match &waited {
                            Ok(()) => r.event(format!("{name}-notified")),
                            Err(error) => r.event(format!(
                                "{name}-cancelled-{}-locked-{}",
                                message(error),
                                py(c.lock().locked())
                            )),
                        }
                        c.release()?;
                        waited
                    });
                    bare_yield().await?;
                    if name == "waiting" {
                        task.cancel(Some("first"));
                    } else {
                        cond.acquire().await?;
                        if name == "reacquiring" {
                            cond.notify(1)?;
                            bare_yield().await?;
                            task.cancel(Some("first"));
                        } else {
                            task.cancel(Some("first"));
                            bare_yield().await?;
                            bare_yield().await?;
                            task.cancel(Some("second"));
                        }
                        bare_yield().await?;
                        cond.release()?;
                    }
                    if let Err(error) = task.join().await {
                        rec.event(format!("{name}-joined-{}", message(&error)));
                    }
                }
                Ok(())
            });
        }

        pub fn condition_notify_skips_cancelled(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let cond = Rc::new(Condition::new());
                let tasks = ["a", "b", "c"].map(|name| {
                    let (r, c) = (Rc::clone(&rec), Rc::clone(&cond));
                    spawn_named(name, async move {
                        c.acquire().await?;
                        let waited = c.wait().await;
                        let locked = py(c.lock().locked());
                        match &waited {
                            Ok(()) => r.event(format!("{name}-notified-locked-{locked}")),
                            Err(_) => r.event(format!("{name}-cancelled-locked-{locked}")),
                        }
                        c.release()?;
                        waited
                    })
                });
                let [a, b, c] = &tasks;
                bare_yield().await?;
                cond.acquire().await?;
                a.cancel(None);
                cond.notify(1)?;
                rec.event("cancelled-a-notified-one");
                cond.release()?;
                bare_yield().await?;
                bare_yield().await?;
                rec.event(format!("c-done-{}", py(c.is_done())));
                cond.acquire().await?;
                cond.notify(1)?;
                cond.release()?;
                c.join().await?;
                rec.event(format!(
                    "a-cancelled-{}-b-done-{}",
                    py(a.is_cancelled()),
                    py(b.is_done())
                ));
                Ok(())
            });
        }

        pub fn semaphore_woken_waiter_passes_on(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let sem = Rc::new(Semaphore::new(0));
                let worker = |name: &'static str| {
                    let (r, s) = (Rc::clone(&rec), Rc::clone(&sem));
                    spawn_named(name, async move {
                        r.event(format!(
                            "{name}-asks-locked-{}-value-{}",
                            py(s.locked()),
                            s.value()
                        ));
                        s.acquire().await?;
                        r.event(format!("{name}-in-value-{}", s.value()));
                        Ok(())
                    })
                };
                let a = worker("a");
                bare_yield().await?;
                let c = worker("c");
                sem.release();
                sem.release();
                rec.event(format!(
                    "released-twice-value-{}-locked-{}",
                    sem.value(),
                    py(sem.locked())
                ));
                c.join().await?;
                a.join().await?;
                rec.event(format!("main-value-{}", sem.value()));
                Ok(())
            });
        }

        pub fn queue_cancelled_putter(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(1));
                queue.put_nowait("x")?;
                let putter = |name: &'static str| {
                    let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                    spawn_named(name, async move {
                        match q.put(name).await {
                            Ok(()) => {
                                r.event(format!("{name}-put-size-{}", q.len()));
                                Ok(())
                            }
                            Err(error) => {
                                r.event(format!("{name}-cancelled-size-{}", q.len()));
                                Err(Error::from(error))
                            }
                        }
                    })
                };
                let (p1, p2) = (putter("p1"), putter("p2"));
                bare_yield().await?;
                rec.event(format!("main-took-{}", queue.get_nowait()?));
                p1.cancel(None);
                p2.join().await?;
                rec.event(format!(
                    "main-sees-{}-p1-cancelled-{}",
                    queue.get_nowait()?,
                    py(p1.is_cancelled())
                ));
                Ok(())
            });
        }

        pub fn primitives_corners(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(0));
                let getter = |name: &'static str| {
                    let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                    spawn_named(name, async move {
                        match q.get().await {
                            Ok(item) => {
                                r.event(format!("{name}-got-{item}"));
                                Ok(())
                            }
                            Err(error) => {
                                r.event(format!("{name}-cancelled"));
                                Err(Error::from(error))
                            }
                        }
                    })
                };
                let (a, b) = (getter("a"), getter("b"));
                bare_yield().await?;
                queue.put_nowait("x")?;
                a.cancel(None);
                rec.event("put-and-cancelled-a");
                b.join().await?;
                if a.join().await.is_err() {
                    rec.event("a-joined-cancelled");
                }

                let full = Queue::new(1);
                full.put_nowait(1)?;
                if full.put_nowait(2) == Err(QueueError::Full) {
                    rec.event("put-nowait-full");
                }
                full.get_nowait()?;
                if full.get_nowait() == Err(QueueError::Empty) {
                    rec.event("get-nowait-empty");
                }
                full.task_done()?;
                Queue::<u8>::new(0).join().await?;
                rec.event("join-of-nothing-returned");
                if full.task_done().is_err() {
                    rec.event("task-done-too-many");
                }

                let sem = Semaphore::new(1);
                sem.release();
                sem.release();
                rec.event(format!("semaphore-value-{}", sem.value()));
                let bounded = BoundedSemaphore::new(1);
                if bounded.release().is_err() {
                    rec.event(format!("bounded-refused-value-{}", bounded.value()));
                }
                let lock = Lock::new();
                if lock.release().is_err() {
                    rec.event(format!("lock-refused-locked-{}", py(lock.locked())));
                }
                Ok(())
            });
        }

        pub fn semaphore_cancelled_waiter(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let sem = Rc::new(Semaphore::new(1));
                sem.acquire().await?;
                let worker = |name: &'static str| {
                    let (r, sem) = (Rc::clone(&rec), Rc::clone(&sem));
                    spawn_named(name, async move {
                        if let Err(error) = sem.acquire().await {
                            r.event(format!("{name}-cancelled"));
                            return Err(error);
                        }
                        r.event(format!("{name}-in"));
                        let slept = bare_yield().await;
                        sem.release();
                        slept?;
                        r.event(format!("{name}-out"));
                        Ok(())
                    })
                };
                let (a, b) = (worker("a"), worker("b"));
                bare_yield().await?;
                sem.release();
                a.cancel(None);
                let newcomer = worker("c");
                rec.event(format!("released-locked-{}", py(sem.locked())));
                b.join().await?;
                newcomer.join().await?;
                if a.join().await.is_err() {
                    rec.event(format!("a-joined-value-{}", sem.value()));
                }
                Ok(())
            });
        }

        pub fn event_set_clear_set(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let event = Rc::new(oneloop_shared::Event::new());
                let waiter = |name: &'static str| {
                    let (r, event) = (Rc::clone(&rec), Rc::clone(&event));
                    spawn_named(name, async move {
                        event.wait().await?;
                        r.event(format!("{name}-woke-set-{}", py(event.is_set())));
                        Ok(())
                    })
                };
                let (a, b) = (waiter("a"), waiter("b"));
                bare_yield().await?;
                event.set();
                event.clear();
                event.set();
                rec.event(format!("set-clear-set-{}", py(event.is_set())));
                a.join().await?;
                b.join().await?;
                event.clear();
                let c = waiter("c");
                bare_yield().await?;
                rec.event(format!("c-waits-done-{}", py(c.is_done())));
                event.set();
                event.clear();
                c.join().await?;
                rec.event(format!("main-done-set-{}", py(event.is_set())));
                Ok(())
            });
        }

        pub fn semaphore_two_released_two_cancelled(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let sem = Rc::new(Semaphore::new(2));
                sem.acquire().await?;
                sem.acquire().await?;
                let worker = |name: &'static str| {
                    let (r, sem) = (Rc::clone(&rec), Rc::clone(&sem));
                    spawn_named(name, async move {
                        if let Err(error) = sem.acquire().await {
                            r.event(format!("{name}-cancelled"));
                            return Err(error);
                        }
                        r.event(format!("{name}-in-value-{}", sem.value()));
                        let slept = bare_yield().await;
                        sem.release();
                        slept?;
                        r.event(format!("{name}-out"));
                        Ok(())
                    })
                };
                let (a, b, c, d) = (worker("a"), worker("b"), worker("c"), worker("d"));
                bare_yield().await?;
                sem.release();
                sem.release();
                a.cancel(None);
                c.cancel(None);
                rec.event(format!(
                    "released-value-{}-locked-{}",
                    sem.value(),
                    py(sem.locked())
                ));
                b.join().await?;
                d.join().await?;
                for (name, task) in [("a", &a), ("c", &c)] {
                    if task.join().await.is_err() {
                        rec.event(format!("{name}-joined-cancelled"));
                    }
                }
                rec.event(format!("main-done-value-{}", sem.value()));
                Ok(())
            });
        }

        pub fn barrier_cancelled_party(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let barrier = Rc::new(oneloop_shared::Barrier::new(3));
                let party = |name: &'static str| {
                    let (r, barrier) = (Rc::clone(&rec), Rc::clone(&barrier));
                    spawn_named(name, async move {
                        match barrier.wait().await {
                            Ok(index) => {
                                r.event(format!("{name}-passed-{index}"));
                                Ok(())
                            }
                            Err(error) => {
                                r.event(format!(
                                    "{name}-cancelled-waiting-{}",
                                    barrier.n_waiting()
                                ));
                                Err(error)
                            }
                        }
                    })
                };
                let (a, b) = (party("a"), party("b"));
                bare_yield().await?;
                rec.event(format!("two-waiting-{}", barrier.n_waiting()));
                a.cancel(None);
                bare_yield().await?;
                let c = party("c");
                bare_yield().await?;
                rec.event(format!(
                    "after-c-waiting-{}-broken-{}",
                    barrier.n_waiting(),
                    py(barrier.broken())
                ));
                let d = party("d");
                for task in [&b, &c, &d] {
                    task.join().await?;
                }
                rec.event(format!(
                    "main-done-waiting-{}-cancelled-{}",
                    barrier.n_waiting(),
                    py(a.is_cancelled())
                ));
                Ok(())
            });
        }

        pub fn queue_two_getters_two_puts(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(0));
                let getter = |name: &'static str| {
                    let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                    spawn_named(name, async move {
                        let item = q.get().await?;
                        r.event(format!("{name}-got-{item}"));
                        Ok(())
                    })
                };
                let (a, b) = (getter("a"), getter("b"));
                bare_yield().await?;
                queue.put_nowait(1)?;
                queue.put_nowait(2)?;
                let took = queue.get_nowait()?;
                rec.event(format!("main-took-{took}-size-{}", queue.len()));
                a.join().await?;
                rec.event(format!(
                    "after-a-size-{}-b-done-{}",
                    queue.len(),
                    py(b.is_done())
                ));
                queue.put_nowait(3)?;
                b.join().await?;
                rec.event(format!("main-done-size-{}", queue.len()));
                Ok(())
            });
        }

        pub fn lock_released_to_a_waiter(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let lock = Rc::new(Lock::new());
                lock.acquire().await?;
                // `late`: yield once, then ask (Python's `late_waiter`).
                let waiter = |name: &'static str, late: bool| {
                    let (r, lock) = (Rc::clone(&rec), Rc::clone(&lock));
                    spawn_named(name, async move {
                        if late {
                            bare_yield().await?;
                            r.event(format!("{name}-asks-locked-{}", py(lock.locked())));
                        }
                        lock.acquire().await?;
                        r.event(format!("{name}-acquired"));
                        let slept = bare_yield().await;
                        lock.release()?;
                        slept
                    })
                };
                let (a, c) = (waiter("a", false), waiter("c", true));
                bare_yield().await?;
                lock.release()?;
                rec.event(format!("released-locked-{}", py(lock.locked())));
                bare_yield().await?;
                rec.event(format!("after-turn-locked-{}", py(lock.locked())));
                a.join().await?;
                c.join().await?;
                rec.event(format!("main-done-locked-{}", py(lock.locked())));
                Ok(())
            });
        }

        pub fn semaphore_release_past_cancelled(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let sem = Rc::new(Semaphore::new(1));
                sem.acquire().await?;
                let (r, s) = (Rc::clone(&rec), Rc::clone(&sem));
                let a = spawn_named("a", async move {
                    if let Err(error) = s.acquire().await {
                        r.event(format!("a-cancelled-value-{}", s.value()));
                        return Err(error);
                    }
                    r.event("a-in");
                    s.release();
                    Ok(())
                });
                bare_yield().await?;
                a.cancel(None);
                sem.release();
                rec.event(format!(
                    "released-value-{}-locked-{}",
                    sem.value(),
                    py(sem.locked())
                ));
                sem.acquire().await?;
                rec.event(format!("main-took-it-again-value-{}", sem.value()));
                if a.join().await.is_err() {
                    rec.event(format!("a-joined-value-{}", sem.value()));
                }
                sem.release();
                rec.event(format!("main-done-value-{}", sem.value()));
                Ok(())
            });
        }

        pub fn queue_put_past_cancelled_getter(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(0));
                let getter = |name: &'static str| {
                    let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                    spawn_named(name, async move {
                        match q.get().await {
                            Ok(item) => {
                                r.event(format!("{name}-got-{item}"));
                                Ok(())
                            }
                            Err(error) => {
                                r.event(format!("{name}-cancelled-size-{}", q.len()));
                                Err(error.into())
                            }
                        }
                    })
                };
                let (a, b) = (getter("a"), getter("b"));
                bare_yield().await?;
                a.cancel(None);
                queue.put_nowait("x")?;
                rec.event(format!("cancelled-a-put-x-size-{}", queue.len()));
                b.join().await?;
                if a.join().await.is_err() {
                    rec.event(format!("a-joined-size-{}", queue.len()));
                }
                Ok(())
            });
        }
    }
    pub use stage10_corners::*;

    /// Corners of stages 9 and 10 that a reader who knows asyncio would probe.
    mod probed {
        use std::cell::{Cell, RefCell};
        use std::future::Future;
        use std::pin::Pin;
        use std::rc::Rc;
        use std::time::Duration;

        use oneloop_cancel::{
            Error, ReturnWhen, Task, WAIT_NOTHING, cancellable, current, gather, sleep,
            spawn_named, task_group, timeout, timeout_at, wait, wait_for,
        };
        use oneloop_future::OneShot;
        use oneloop_shared::{Barrier, Condition, Event, Queue, Semaphore};
        use oneloop_timers::{LoopTimers, TimerHandle, Timers};

        use super::super::truth::Recorder;
        use super::stage9_corners::show;
        use super::{bare_yield, call_soon, counts, message, named, py, run_main, run_task_main};

        pub fn cancel_before_first_step(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let task = spawn_named("guarded", async move {
                    r.event("body-runs");
                    if bare_yield().await.is_err() {
                        r.event("body-caught-cancel");
                    }
                    Ok(1)
                });
                rec.event(format!("cancel-{}", py(task.cancel(None))));
                match task.join().await {
                    Ok(_) => rec.event("task-returned"),
                    Err(_) => rec.event(format!(
                        "task-cancelled-{}-cancelling-{}",
                        py(task.is_cancelled()),
                        task.cancelling()
                    )),
                }
                Ok(())
            });
        }

        pub fn done_callback_then_join(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let done = spawn_named("quick", async { Ok(8) });
                let r = Rc::clone(&rec);
                let task = Rc::new(spawn_named("child", async move {
                    bare_yield().await?;
                    r.event("child-returns");
                    Ok(7)
                }));
                let (r, seen) = (Rc::clone(&rec), task.task_ref());
                task.add_done_callback("first", move || {
                    r.event(format!("first-done-{}", py(seen.is_done())));
                    call_soon("later", named(&r, "later"));
                });
                let (r, adding): (_, Rc<Task<i32>>) = (Rc::clone(&rec), Rc::clone(&task));
                drop(spawn_named("adder", async move {
                    let (r2, seen) = (Rc::clone(&r), adding.task_ref());
                    adding.add_done_callback("second", move || {
                        r2.event(format!("second-done-{}", py(seen.is_done())));
                    });
                    r.event("second-added");
                    Ok(())
                }));
                let value = task.join().await?;
                rec.event(format!("main-joined-{value}"));
                call_soon("later", named(&rec, "later"));
                let value = done.join().await?;
                rec.event(format!("main-joined-done-{value}"));
                bare_yield().await?;
                bare_yield().await?;
                Ok(())
            });
        }

        pub fn cancel_finishing_task(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let late = spawn_named("finisher", async move {
                    bare_yield().await?;
                    r.event("finisher-last-line");
                    Ok(1)
                });
                bare_yield().await?;
                rec.event(format!("cancel-before-last-step-{}", py(late.cancel(None))));
                if late.join().await.is_err() {
                    rec.event(format!("finisher-cancelled-{}", py(late.is_cancelled())));
                }
                rec.event(format!(
                    "cancel-cancelled-{}-cancelling-{}",
                    py(late.cancel(None)),
                    late.cancelling()
                ));
                let done = spawn_named("done", bare_yield());
                done.join().await?;
                rec.event(format!(
                    "cancel-returned-{}-cancelling-{}",
                    py(done.cancel(None)),
                    done.cancelling()
                ));

                let r = Rc::clone(&rec);
                let stubborn = spawn_named("ignorer", async move {
                    if sleep(Duration::from_secs(10)).await.is_err() {
                        r.event("ignorer-swallows");
                    }
                    bare_yield().await?;
                    Ok("kept")
                });
                match wait_for(Duration::from_millis(10), stubborn.join()).await {
                    Ok(value) => rec.event(format!(
                        "wait_for-returned-{value}-cancelling-{}",
                        stubborn.cancelling()
                    )),
                    Err(_) => rec.event("wait_for-timed-out"),
                }
                Ok(())
            });
        }

        pub fn primitives_probed(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let event = Rc::new(Event::new());
                let (r, e) = (Rc::clone(&rec), Rc::clone(&event));
                let woken = spawn_named("event_waiter", async move {
                    e.wait().await?;
                    r.event(format!("event-waiter-woke-set-{}", py(e.is_set())));
                    Ok(())
                });
                bare_yield().await?;
                event.set();
                event.clear();
                woken.join().await?;

                let sem = Rc::new(Semaphore::new(1));
                sem.acquire().await?;
                let (r, s) = (Rc::clone(&rec), Rc::clone(&sem));
                let waiter = spawn_named("sem_waiter", async move {
                    s.acquire().await?;
                    r.event("waiter-acquired");
                    s.release();
                    Ok(())
                });
                bare_yield().await?;
                sem.release();
                rec.event(format!(
                    "released-locked-{}-value-{}",
                    py(sem.locked()),
                    sem.value()
                ));
                sem.acquire().await?;
                rec.event("releaser-acquired-again");
                sem.release();
                waiter.join().await?;

                let cond = Rc::new(Condition::new());
                let boxed = Rc::new(Cell::new(0));
                let (r, c, b) = (Rc::clone(&rec), Rc::clone(&cond), Rc::clone(&boxed));
                let waiting = spawn_named("cond_waiter", async move {
                    c.acquire().await?;
                    c.wait_for(|| b.get() >= 2).await?;
                    r.event(format!("cond-waiter-saw-{}", b.get()));
                    c.release()
                });
                for _ in 0..2 {
                    bare_yield().await?;
                    cond.acquire().await?;
                    boxed.set(boxed.get() + 1);
                    rec.event(format!("notify-at-{}", boxed.get()));
                    cond.notify(1)?;
                    cond.release()?;
                }
                waiting.join().await?;

                let barrier = Rc::new(Barrier::new(3));
                let parties = [("a", 1), ("b", 1), ("c", 2)].map(|(name, rounds)| {
                    let (r, b) = (Rc::clone(&rec), Rc::clone(&barrier));
                    spawn_named(name, party(r, b, name, rounds))
                });
                for _ in 0..3 {
                    bare_yield().await?;
                }
                rec.event(format!("waiting-{}", barrier.n_waiting()));
                barrier.abort();
                rec.event(format!(
                    "aborted-broken-{}-waiting-{}",
                    py(barrier.broken()),
                    barrier.n_waiting()
                ));
                for party in &parties {
                    party.join().await?;
                }
                party(Rc::clone(&rec), barrier, "late", 1).await
            });
        }

        /// `barrier_party`: waits at the barrier `rounds` times, saying each index, or
        /// that it found the barrier broken.
        async fn party(
            rec: Rc<Recorder>,
            barrier: Rc<Barrier>,
            name: &'static str,
            rounds: usize,
        ) -> Result<(), Error> {
            for _ in 0..rounds {
                match barrier.wait().await {
                    Ok(index) => rec.event(format!("{name}-passed-{index}")),
                    Err(Error::Failed(_)) => {
                        rec.event(format!("{name}-broken"));
                        break;
                    }
                    Err(other) => return Err(other),
                }
            }
            Ok(())
        }

        /// `fails`: yields `turns` times, then fails with `name`.
        async fn fails(rec: Rc<Recorder>, name: &'static str, turns: u32) -> Result<(), Error> {
            for _ in 0..turns {
                bare_yield().await?;
            }
            rec.event(format!("{name}-fails"));
            Err(Error::Failed(name.to_owned()))
        }

        pub fn taskgroup_late_failures(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                let r = Rc::clone(&rec);
                let after_body = task_group(|tg| async move {
                    tg.spawn("a", fails(Rc::clone(&r), "a", 2))?;
                    let r2 = Rc::clone(&r);
                    tg.spawn("b", async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        if slept.is_err() {
                            r2.event("b-cancelled");
                        }
                        slept
                    })?;
                    r.event("body-ends");
                    Ok(())
                })
                .await;
                if let Err(error) = &after_body {
                    rec.event(format!(
                        "after-body-raised-{}-cancelling-{}",
                        show(error),
                        me.cancelling()
                    ));
                }
                let r = Rc::clone(&rec);
                let in_finally = task_group(|tg| async move {
                    tg.spawn("c", fails(Rc::clone(&r), "c", 1))?;
                    let r2 = Rc::clone(&r);
                    tg.spawn("d", async move {
                        let slept = sleep(Duration::from_secs(10)).await;
                        r2.event("d-cleanup-starts");
                        bare_yield().await.ok();
                        bare_yield().await.ok();
                        r2.event("d-cleanup-ends");
                        slept
                    })?;
                    tg.spawn("e", fails(Rc::clone(&r), "e", 3))?;
                    sleep(Duration::from_secs(10)).await
                })
                .await;
                if let Err(error) = &in_finally {
                    rec.event(format!(
                        "in-finally-raised-{}-cancelling-{}",
                        show(error),
                        me.cancelling()
                    ));
                }
                Ok(())
            });
        }

        pub fn timeout_zero(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let r = Rc::clone(&rec);
                let yielding = timeout(Duration::ZERO, async move {
                    r.event("yielding-body-starts");
                    bare_yield().await?;
                    r.event("yielding-body-went-on");
                    Ok(())
                })
                .await;
                if yielding == Err(Error::TimedOut) {
                    rec.event("yielding-body-timed-out");
                }
                let r = Rc::clone(&rec);
                let waiting = timeout(Duration::ZERO, async move {
                    r.event("waiting-body-starts");
                    sleep(Duration::from_secs(10)).await
                })
                .await;
                if waiting == Err(Error::TimedOut) {
                    rec.event("waiting-body-timed-out");
                }
                Ok(())
            });
        }

        pub fn queue_newcomer_wins(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let queue = Rc::new(Queue::new(0));
                let (r, q) = (Rc::clone(&rec), Rc::clone(&queue));
                let waiting = spawn_named("getter", async move {
                    let item = q.get().await?;
                    r.event(format!("getter-got-{item}"));
                    Ok(())
                });
                bare_yield().await?;
                queue.put_nowait("x")?;
                rec.event(format!("main-took-{}", queue.get_nowait()?));
                bare_yield().await?;
                queue.put_nowait("y")?;
                waiting.join().await?;

                let full = Rc::new(Queue::new(1));
                full.put_nowait("a")?;
                let (r, q) = (Rc::clone(&rec), Rc::clone(&full));
                let waiting = spawn_named("putter", async move {
                    q.put("p").await?;
                    r.event("putter-put");
                    Ok(())
                });
                bare_yield().await?;
                rec.event(format!("main-took-{}", full.get_nowait()?));
                full.put_nowait("b")?;
                bare_yield().await?;
                rec.event(format!("main-took-{}", full.get_nowait()?));
                waiting.join().await?;
                rec.event(format!("left-{}", full.get_nowait()?));
                Ok(())
            });
        }

        /// A child of `gather_child_cancelled`.
        type Child = Pin<Box<dyn Future<Output = Result<u32, Error>>>>;

        /// `gives_up`: cancels its own task and meets the cancel at its next await.
        async fn gives_up(rec: Rc<Recorder>) -> Result<u32, Error> {
            current()
                .expect("a gather child is a task")
                .cancel(Some("gave up"));
            bare_yield().await?;
            rec.event("never");
            Ok(0)
        }

        async fn works() -> Result<u32, Error> {
            Ok(7)
        }

        pub fn gather_child_cancelled(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let me = current().expect("main is a task");
                // The entry's message is the child's own ("gave up"), where 3.11 has
                // none: the script shows neither (see its docstring).
                let shown = |result: &Result<u32, Error>| match result {
                    Ok(value) => value.to_string(),
                    Err(error) if error.is_cancelled() => "cancelled".to_owned(),
                    Err(error) => error.to_string(),
                };
                let children: Vec<Child> =
                    vec![Box::pin(gives_up(Rc::clone(&rec))), Box::pin(works())];
                let results = gather(children, true).await?;
                let results: Vec<String> = results.iter().map(shown).collect();
                rec.event(format!(
                    "collected-{}-cancelling-{}",
                    results.join("-"),
                    me.cancelling()
                ));
                let children: Vec<Child> =
                    vec![Box::pin(gives_up(Rc::clone(&rec))), Box::pin(works())];
                if let Err(error) = gather(children, false).await {
                    rec.event(format!(
                        "raised-cancelled({})-cancelling-{}",
                        message(&error),
                        me.cancelling()
                    ));
                }
                bare_yield().await?;
                rec.event("main-went-on");
                Ok(())
            });
        }

        /// `slow`: yields twice, then fails or returns 2.
        async fn slow(fail: bool) -> Result<u64, Error> {
            bare_yield().await?;
            bare_yield().await?;
            if fail {
                return Err(Error::Failed("slow".to_owned()));
            }
            Ok(2)
        }

        pub fn wait_wakes_when_ready(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let tasks = [
                    spawn_named("quick", async { Ok(1) }),
                    spawn_named("slow", slow(false)),
                ];
                let (done, pending) = wait(&tasks, ReturnWhen::AllCompleted).await?;
                rec.event(format!("all-done-{}-pending-{}", done.len(), pending.len()));

                let tasks = [
                    spawn_named("quick", async { Ok(1) }),
                    spawn_named("slow", slow(true)),
                    spawn_named("sleeper", async {
                        sleep(Duration::from_secs(10)).await?;
                        Ok(0)
                    }),
                ];
                let (done, pending) = wait(&tasks, ReturnWhen::FirstException).await?;
                rec.event(format!(
                    "first-exception-done-{}-pending-{}",
                    done.len(),
                    pending.len()
                ));
                assert!(tasks[1].try_result().is_some_and(|r| r.is_err()));
                tasks[2].cancel(None);
                if tasks[2].join().await.is_err() {
                    rec.event("sleeper-cancelled");
                }
                let nothing: [Task<u64>; 0] = [];
                if wait(&nothing, ReturnWhen::AllCompleted).await
                    == Err(Error::Misuse(WAIT_NOTHING))
                {
                    rec.event("wait-of-nothing-refused");
                }
                Ok(())
            });
        }

        pub fn timeout_meets_a_result(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let when = oneloop_timers::time() + Duration::from_millis(10);
                let future = OneShot::<u32, ()>::new();
                let (r, setting) = (Rc::clone(&rec), future.clone());
                let timers = oneloop_core::hooks::with_current(|core| core.timers())
                    .expect("inside the loop");
                timers.call_at_named(when, "setter", move || {
                    r.event("setter");
                    setting.set_result(5).expect("set once");
                });
                let r = Rc::clone(&rec);
                let waited = future.clone();
                let outcome = timeout_at(when, async move {
                    let value = cancellable(waited.wait()).await?.expect("set, not failed");
                    r.event(format!("body-got-{value}"));
                    Ok(())
                })
                .await;
                if outcome == Err(Error::TimedOut) {
                    rec.event(format!("timed-out-future-done-{}", py(future.done())));
                }
                Ok(())
            });
        }

        pub fn condition_notify_all_lock(rec: &Rc<Recorder>) {
            run_task_main(rec, |rec| async move {
                let cond = Rc::new(Condition::new());
                let tasks = ["a", "b", "c"].map(|name| {
                    let (r, c) = (Rc::clone(&rec), Rc::clone(&cond));
                    spawn_named(name, async move {
                        c.acquire().await?;
                        c.wait().await?;
                        r.event(format!("{name}-has-lock"));
                        bare_yield().await?;
                        r.event(format!("{name}-releases"));
                        c.release()
                    })
                });
                bare_yield().await?;
                cond.acquire().await?;
                cond.notify_all()?;
                rec.event("notified");
                cond.release()?;
                for task in &tasks {
                    task.join().await?;
                }
                Ok(())
            });
        }

        pub fn timer_cancelled_when_due(rec: &Rc<Recorder>) {
            run_main(rec, oneloop_timers::real_time_loop(), |rec| async move {
                let timers = Timers::current().expect("a timer layer");
                let done = OneShot::<(), ()>::new();
                let handles: Rc<RefCell<Vec<TimerHandle>>> = Rc::default();
                let (r, seen) = (Rc::clone(&rec), Rc::clone(&handles));
                let first = timers.call_later_named(Duration::ZERO, "first", move || {
                    let second = seen.borrow()[1].clone();
                    second.cancel();
                    r.event(format!(
                        "first-cancelled-second-{}-{}",
                        counts(),
                        py(second.is_cancelled())
                    ));
                });
                handles.borrow_mut().push(first);
                let second =
                    timers.call_later_named(Duration::ZERO, "second", named(&rec, "second"));
                handles.borrow_mut().push(second);
                let setter = done.clone();
                timers.call_later_named(Duration::ZERO, "last", move || {
                    setter.set_result(()).expect("set once");
                });
                done.wait().await.expect("last sets it");
                rec.event(format!("main-resumed-{}", counts()));
            });
        }
    }
    pub use probed::*;
}

#[test]
fn python3_is_there_and_its_version_is_printed() {
    let version = truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    assert!(version.starts_with("Python 3."), "{version}");
}

#[test]
fn every_script_has_a_scenario_and_back() {
    let scripts: BTreeSet<String> = fs::read_dir(truth::scripts_dir())
        .expect("tests/asyncio exists")
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().to_string();
            name.strip_suffix(".py").map(str::to_string)
        })
        .filter(|name| name != "truthtrace")
        .collect();
    let listed: BTreeSet<String> = SCENARIOS.iter().map(|s| s.name.to_string()).collect();
    assert_eq!(
        scripts, listed,
        "each tests/asyncio/<name>.py needs an entry in scenarios!, and each entry a script"
    );
    assert!(SCENARIOS.len() >= 20);
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

#[test]
fn the_comparer_shows_a_swapped_pair_as_a_line_by_line_diff() {
    watchdog_default(|| {
        let cpython = lines("turn=1 run=first\nturn=1 run=second\nturn=1 run=third\nturns=1");
        let oneloop = lines("turn=1 run=first\nturn=1 run=third\nturn=1 run=second\nturns=1");
        let message = truth::compare(&cpython, &oneloop).expect_err("a swapped pair differs");
        let shown: Vec<&str> = message.lines().collect();
        assert_eq!(
            shown,
            [
                "the traces differ; first at line 2 (marked >>):",
                "       #  CPython            oneloop",
                "       1  turn=1 run=first   turn=1 run=first",
                "  >>   2  turn=1 run=second  turn=1 run=third",
                "  !=   3  turn=1 run=third   turn=1 run=second",
                "       4  turns=1            turns=1",
            ],
            "the message was:\n{message}"
        );
        assert_eq!(truth::compare(&cpython, &cpython), Ok(()));
    });
}

#[test]
fn the_comparer_shows_a_missing_line_as_none() {
    watchdog_default(|| {
        let cpython = lines("turn=1 run=main\nturn=2 run=main\nturns=2");
        let oneloop = lines("turn=1 run=main\nturns=1");
        let message = truth::compare(&cpython, &oneloop).expect_err("a lost turn differs");
        assert!(
            message.contains("  >>   2  turn=2 run=main  turns=1\n"),
            "{message}"
        );
        assert!(
            message.contains("  !=   3  turns=2          (none)\n"),
            "{message}"
        );
    });
}

/// A scenario whose oneloop side is never run: for checking `verdict` on given traces.
fn on_paper(differences: &'static [Difference]) -> Scenario {
    Scenario {
        name: "on_paper",
        oneloop: |_| {},
        differences,
        cpython_says: &[],
    }
}

#[test]
fn the_differences_rewrite_cpython_traces_as_documented() {
    watchdog_default(|| {
        // gather of two children, through run_until_complete, as CPython prints it.
        let cpython = lines(
            "turn=1 run=main\nturn=2 run=task\nturn=2 run=task\n\
             turn=3 run=_done_callback\nturn=3 run=_done_callback\n\
             turn=4 run=main\nturn=4 event=done\nturn=5 run=_run_until_complete_cb\nturns=5",
        );
        let oneloop = lines(
            "turn=1 run=main\nturn=2 run=task\nturn=2 run=task\nturn=3 run=main\n\
             turn=3 event=done\nturn=4 run=_run_until_complete_cb\nturns=4",
        );
        let both = on_paper(&[GatherDoneCallbackHop]);
        assert_eq!(truth::verdict(&both, &cpython, &oneloop), Ok(()));
        // Without the differences, the diff points at the done callbacks.
        let none = on_paper(&[]);
        let message = truth::verdict(&none, &cpython, &oneloop).expect_err("they differ");
        assert!(
            message.contains("turn=3 run=_done_callback x2"),
            "{message}"
        );

        // A difference that changes nothing is refused, not ignored.
        let stale = on_paper(&[CancelBecomesDrop]);
        let message = truth::verdict(&stale, &cpython, &cpython).expect_err("stale");
        assert!(
            message.contains("`cancel becomes drop` changes nothing"),
            "{message}"
        );

        // Cancelling becomes dropping: the cleanup moves outside any turn.
        let cancelled = lines(
            "turn=1 run=main\nturn=2 run=_run_until_complete_cb\nmark=cancel-leftovers\n\
             turn=3 run=leftover\nturn=3 event=cleanup\nturn=4 run=_done_callback\n\
             turn=5 run=_run_until_complete_cb\nmark=cancelled-leftovers\nturns=5",
        );
        let dropped = lines(
            "turn=1 run=main\nturn=2 run=_run_until_complete_cb\nturn=- event=cleanup\nturns=2",
        );
        let run = on_paper(&[CancelBecomesDrop]);
        assert_eq!(truth::verdict(&run, &cancelled, &dropped), Ok(()));
    });
}

#[test]
fn the_later_stages_differences_rewrite_cpython_traces_as_documented() {
    watchdog_default(|| {
        // Ties: each tie keeps its events, and only the tie handles of one turn move.
        let heap_order = lines(
            "turn=2 run=tie_0\nturn=2 event=tie-0\nturn=2 run=tie_2\nturn=2 event=tie-2\n\
             turn=2 run=tie_1\nturn=2 event=tie-1\nturn=3 run=main\nturns=3",
        );
        let in_order = lines(
            "turn=2 run=tie_0\nturn=2 event=tie-0\nturn=2 run=tie_1\nturn=2 event=tie-1\n\
             turn=2 run=tie_2\nturn=2 event=tie-2\nturn=3 run=main\nturns=3",
        );
        let ties = on_paper(&[TiesInSchedulingOrder]);
        assert_eq!(truth::verdict(&ties, &heap_order, &in_order), Ok(()));

        // A group's members: sorted the same way, by their own prefix only.
        let set_order = lines(
            "turn=5 run=member_1\nturn=5 event=member-1\nturn=5 run=member_0\n\
             turn=5 event=member-0\nturn=5 run=main\nturns=5",
        );
        let spawn_order = lines(
            "turn=5 run=member_0\nturn=5 event=member-0\nturn=5 run=member_1\n\
             turn=5 event=member-1\nturn=5 run=main\nturns=5",
        );
        let members = on_paper(&[GroupCancelsInSetOrder]);
        assert_eq!(truth::verdict(&members, &set_order, &spawn_order), Ok(()));
        let message = truth::verdict(&ties, &set_order, &spawn_order).expect_err("tie_ only");
        assert!(message.contains("changes nothing"), "{message}");

        // The self-pipe's read goes; a turn that ran nothing else goes with it.
        let piped = lines(
            "turn=1 run=main\nturn=2 run=wake\nturn=3 run=_read_from_self\n\
             turn=4 run=main\nturns=4",
        );
        let woken = lines("turn=1 run=main\nturn=2 run=wake\nturn=3 run=main\nturns=3");
        let pipe = on_paper(&[SelfPipeRead]);
        assert_eq!(truth::verdict(&pipe, &piped, &woken), Ok(()));

        // Thread-safe calls: each with its events, to the end of its own turn only.
        let appended = lines(
            "turn=2 run=local_0\nturn=2 run=from_thread_0\nturn=2 event=t0\n\
             turn=2 run=from_thread_1\nturn=2 run=local_1\nturn=2 event=l1\n\
             turn=3 run=from_thread_2\nturn=3 run=main\nturns=3",
        );
        let at_the_park = lines(
            "turn=2 run=local_0\nturn=2 run=local_1\nturn=2 event=l1\n\
             turn=2 run=from_thread_0\nturn=2 event=t0\nturn=2 run=from_thread_1\n\
             turn=3 run=main\nturn=3 run=from_thread_2\nturns=3",
        );
        let inbox = on_paper(&[ThreadSafeCallsAtThePark]);
        assert_eq!(truth::verdict(&inbox, &appended, &at_the_park), Ok(()));

        // sock_recv's reader does the read: its turn goes, and the partial beside main.
        let read_by_callback = lines(
            "turn=2 run=writer\nturn=3 run=_sock_recv\nturn=4 run=partial\n\
             turn=4 run=main\nturn=4 event=got\nturns=4",
        );
        let read_by_task = lines("turn=2 run=writer\nturn=3 run=main\nturn=3 event=got\nturns=3");
        let sock = on_paper(&[SockRecvCallbackHop]);
        assert_eq!(
            truth::verdict(&sock, &read_by_callback, &read_by_task),
            Ok(())
        );

        // The executor's shutdown: both steps of its task, the turn between them, and
        // the stop callback's turn all go.
        let shutdown = lines(
            "turn=1 run=main\nturn=2 run=_run_until_complete_cb\n\
             turn=3 run=BaseEventLoop.shutdown_default_executor\nturn=4 run=set_result\n\
             turn=5 run=BaseEventLoop.shutdown_default_executor\n\
             turn=6 run=_run_until_complete_cb\nturns=6",
        );
        let closed = lines("turn=1 run=main\nturn=2 run=_run_until_complete_cb\nturns=2");
        let turns = on_paper(&[ShutdownTurns]);
        assert_eq!(truth::verdict(&turns, &shutdown, &closed), Ok(()));

        // The timeout's own timer is shown as the sleep's.
        let timed = lines("turn=1 run=main\nturn=2 run=_on_timeout\nturn=3 run=main\nturns=3");
        let slept = lines(
            "turn=1 run=main\nturn=2 run=_set_result_unless_cancelled\nturn=3 run=main\nturns=3",
        );
        let sleep = on_paper(&[TimeoutFiresASleep, ChainCancelCheck]);
        let message = truth::verdict(&sleep, &timed, &slept).expect_err("one is stale");
        assert!(
            message.contains("`chained future's cancel check` changes nothing"),
            "{message}"
        );
        let sleep = on_paper(&[TimeoutFiresASleep]);
        assert_eq!(truth::verdict(&sleep, &timed, &slept), Ok(()));
    });
}

/// The book's stepper shows CPython's turns beside a scenario that is also a truth
/// scenario, and marks the differences declared here: it must declare the same ones,
/// and name oneloop's handles as this suite does.
#[test]
fn the_steppers_cpython_column_declares_what_the_suite_declares() {
    assert_eq!(
        oneloop_trace::cpython::CPYTHON_NAMES,
        truth::CPYTHON_NAMES,
        "the stepper names oneloop's handles as the suite does"
    );
    for pair in oneloop_trace::cpython::pairs() {
        let scenario = SCENARIOS
            .iter()
            .find(|scenario| scenario.name == pair.script)
            .unwrap_or_else(|| panic!("the stepper pairs `{}` with no truth scenario", pair.demo));
        let declared: BTreeSet<&str> = scenario.differences.iter().map(|d| d.name()).collect();
        let marked: BTreeSet<&str> = pair.differs.iter().map(|d| d.name).collect();
        assert_eq!(
            marked, declared,
            "the stepper's column for `{}` marks other differences than `{}` declares",
            pair.demo, pair.script
        );
    }
}

#[test]
fn the_wait_for_difference_rewrites_a_3_11_trace_into_the_3_12_turns() {
    watchdog_default(|| {
        // 3.11: the waiter's timer, main's wake that cancels, the task, the partial,
        // main again. 3.12 and oneloop: the timeout's timer, the task, main.
        let waiter = lines(
            "turn=1 run=main\nturn=2 run=slow\nturn=3 run=_release_waiter\n\
             turn=4 run=main\nturn=5 run=slow\nturn=5 event=saw\nturn=6 run=partial\n\
             turn=7 run=main\nturn=7 event=timed-out\nturns=7",
        );
        let timeout = lines(
            "turn=1 run=main\nturn=2 run=slow\nturn=3 run=_on_timeout\n\
             turn=4 run=slow\nturn=4 event=saw\nturn=5 run=main\nturn=5 event=timed-out\n\
             turns=5",
        );
        let wait_for = on_paper(&[WaitForReleasesAWaiter]);
        assert_eq!(truth::verdict(&wait_for, &waiter, &timeout), Ok(()));
        // A turn after the timer that records an event is not the waiter's wake: kept.
        let busy = lines(
            "turn=1 run=main\nturn=2 run=_release_waiter\nturn=3 run=main\n\
             turn=3 event=x\nturns=3",
        );
        let kept = lines(
            "turn=1 run=main\nturn=2 run=_on_timeout\nturn=3 run=main\nturn=3 event=x\nturns=3",
        );
        assert_eq!(truth::verdict(&wait_for, &busy, &kept), Ok(()));
    });
}

/// Chapter 6's account of asyncio's accept loop at `EMFILE`, read off CPython's own
/// source with `ast`: inside `for _ in range(backlog)`, the out-of-resources handler
/// reports, stops watching, schedules the retry, and neither returns nor breaks, so
/// the loop goes on to accept again in the same event.
#[test]
fn cpython_accept_stays_in_its_loop_after_an_out_of_resources_error() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import ast, inspect, textwrap, asyncio.selector_events as s
source = textwrap.dedent(inspect.getsource(s.BaseSelectorEventLoop._accept_connection))
function = ast.parse(source).body[0]
loop = next(node for node in ast.walk(function) if isinstance(node, ast.For))
print('loop', ast.unparse(loop.iter))
handlers = [h for t in ast.walk(loop) if isinstance(t, ast.Try) for h in t.handlers
            if h.type is not None and ast.unparse(h.type) == 'OSError']
print('handlers', len(handlers))
calls = [ast.unparse(n.func) for n in ast.walk(handlers[0]) if isinstance(n, ast.Call)]
for name in ('call_exception_handler', '_remove_reader', 'call_later'):
    print(name, sum(call.endswith(name) for call in calls))
print('exits', sum(isinstance(n, (ast.Return, ast.Break)) for n in ast.walk(handlers[0])))
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "loop range(backlog)",
            "handlers 1",
            "call_exception_handler 1",
            "_remove_reader 1",
            "call_later 1",
            "exits 0",
        ]
    );
}

#[test]
fn cpython_event_set_skips_the_future_a_cancel_already_finished() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    // set_result on a cancelled future raises InvalidStateError: a set that reached
    // it would end this script with a traceback.
    let script = "\
import asyncio
async def main():
    event = asyncio.Event()
    task = asyncio.create_task(event.wait())
    await asyncio.sleep(0)
    waiter = next(iter(event._waiters))
    task.cancel()
    print('future cancelled by the request', waiter.cancelled())
    event.set()
    print('set raised nothing')
    try:
        await task
    except asyncio.CancelledError:
        print('task ended cancelled')
asyncio.run(main())
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "future cancelled by the request True",
            "set raised nothing",
            "task ended cancelled",
        ]
    );
}

/// Chapter 7.3 on a job that ends after its awaiting task was cancelled: on 3.11 the
/// job runs to its end, its result comes back to the loop and is dropped there
/// (`_copy_future_state` finds the future cancelled), and nothing is reported.
/// oneloop's side is `a_task_that_dropped_its_to_thread_future_is_not_woken_when_the_job_ends`
/// in the reliability suite.
#[test]
fn cpython_a_job_ending_after_its_task_was_cancelled_is_dropped_quietly() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio, threading
reports = []
go, finished = threading.Event(), threading.Event()
def job():
    go.wait(10)
    finished.set()
    return 'late'
async def main():
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reports.append(context['message']))
    async def waiter():
        return await asyncio.to_thread(job)
    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print('task cancelled', task.cancelled(), 'job finished', finished.is_set())
    go.set()
    while not finished.is_set():
        await asyncio.sleep(0.01)
asyncio.run(main())
print('job finished', finished.is_set(), 'reports', len(reports))
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "task cancelled True job finished False",
            "job finished True reports 0"
        ]
    );
}

/// Chapter 7.3 on a default executor shut down while the loop runs: 3.11 refuses
/// `to_thread` at once, with no turn, and goes on refusing after
/// `set_default_executor` gives it a new one (the loop remembers that shutdown was
/// called); an executor passed by hand still works.
#[test]
fn cpython_to_thread_after_the_default_executor_shut_down_is_refused_for_good() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio, concurrent.futures
async def main():
    loop = asyncio.get_running_loop()
    await asyncio.to_thread(lambda: None)
    await loop.shutdown_default_executor()
    turns = 0
    def tick():
        nonlocal turns
        turns += 1
        loop.call_soon(tick)
    loop.call_soon(tick)
    try:
        await asyncio.to_thread(lambda: 1)
    except RuntimeError as error:
        print('refused:', error, 'after', turns, 'turns')
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor())
    try:
        print('new pool gave', await asyncio.to_thread(lambda: 2))
    except RuntimeError as error:
        print('new pool refused:', error)
    pool = concurrent.futures.ThreadPoolExecutor()
    print('explicit pool gave', await loop.run_in_executor(pool, lambda: 3))
    pool.shutdown()
asyncio.run(main())
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "refused: Executor shutdown has been called after 0 turns",
            "new pool refused: Executor shutdown has been called",
            "explicit pool gave 3"
        ]
    );
}

/// Chapter 7.3: oneloop has no loop-wide "shutdown was called" flag. A default pool
/// shut down while the loop runs refuses `to_thread` at the await with `PoolShutDown`,
/// with no turn, as 3.11 refuses; a pool set with `set_default_pool` afterwards is used.
#[test]
fn oneloop_to_thread_after_the_default_pool_shut_down_is_refused_until_a_new_pool_is_set() {
    use std::time::Duration;

    use oneloop_offload::{Offload, OffloadError, ThreadPool, to_thread};

    watchdog_default(|| {
        oneloop_offload::run(async {
            let offload = Offload::current().expect("an offload layer");
            to_thread(|| ()).await.expect("the first job runs");
            let pool = offload.default_pool().expect("the loop is open");
            assert!(pool.shutdown(Duration::from_secs(5)).is_clean());
            let core = oneloop_core::hooks::with_current(std::rc::Rc::clone).expect("a loop");
            let turn = core.turn();
            let refused = to_thread(|| 1).await;
            assert_eq!(refused, Err(OffloadError::PoolShutDown));
            assert_eq!(core.turn(), turn, "refused with no turn");
            offload.set_default_pool(ThreadPool::new());
            assert_eq!(to_thread(|| 2).await, Ok(2), "3.11 refuses here");
        })
        .expect("main finishes");
    });
}

/// Chapter 4.5 on `run_until_complete` of a plain future: CPython hangs its stop
/// callback on the future itself, with no task around it, so a future set by a
/// callback in turn 2 stops the loop in turn 3; a coroutine awaiting the same kind of
/// future is wrapped in a task and takes turn 4 as well.
#[test]
fn cpython_run_until_complete_of_a_future_takes_no_task_turn() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio
loop = asyncio.new_event_loop()
turns = 0
run_once = loop._run_once
def counting():
    global turns
    turns += 1
    run_once()
loop._run_once = counting
def set_later(fut, value):
    loop.call_soon(lambda: loop.call_soon(fut.set_result, value))
fut = loop.create_future()
set_later(fut, 7)
print('future gave', loop.run_until_complete(fut), 'after', turns, 'turns')
async def main(fut):
    return await fut
fut = loop.create_future()
set_later(fut, 8)
turns = 0
print('coroutine gave', loop.run_until_complete(main(fut)), 'after', turns, 'turns')
loop.close()
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "future gave 7 after 3 turns",
            "coroutine gave 8 after 4 turns"
        ]
    );
}

/// Chapter 4.5: oneloop's `run_until_complete` makes a task of whatever future it is
/// given, so the plain future of the CPython check above costs the task's turn too:
/// four turns, as CPython's coroutine.
#[test]
fn oneloop_run_until_complete_of_a_future_takes_a_task_turn() {
    use oneloop_core::EventLoop;
    use oneloop_future::OneShot;

    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let future = OneShot::<u32, ()>::new();
        let setter = future.clone();
        let core = std::rc::Rc::clone(event_loop.core());
        event_loop.call_soon_named("schedule", move || {
            core.call_soon_named("set_result", move || {
                setter.set_result(7).expect("set once");
            });
        });
        let value = event_loop
            .run_until_complete(future.wait())
            .expect("main finishes");
        assert_eq!(value, Ok(7));
        assert_eq!(event_loop.core().turn(), 4, "CPython's plain future: 3");
        event_loop.close();
    });
}

/// Chapter 9.3 on 3.11's `wait_for` of a task already done: it still hangs a done
/// callback (a `partial` of `_release_waiter`) on the task and awaits its waiter, so it
/// returns two turns later. 3.12's, and oneloop's, return at once
/// (`wait_for_on_a_done_task_takes_no_turn` in stage 9's suite).
#[test]
fn cpython_wait_for_on_a_done_task_takes_two_turns() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio
async def main():
    loop = asyncio.get_running_loop()
    task = asyncio.create_task(asyncio.sleep(0, 'v'))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    turns = 0
    def tick():
        nonlocal turns
        turns += 1
        loop.call_soon(tick)
    loop.call_soon(tick)
    print('task done', task.done())
    value = await asyncio.wait_for(task, 10)
    print('wait_for gave', value, 'after', turns, 'turns')
asyncio.run(main())
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(printed, ["task done True", "wait_for gave v after 2 turns"]);
}

/// Chapters 4.3 and 5.5 on CPython's pulse: a task that ticks and sleeps 10 ms, spawned
/// before a worker that blocks 100 ms ten times with a `sleep(0)` after each. 3.11
/// ticks four times, in turns 2, 4, 7 and 10 (the turns oneloop's
/// `ex4_the_pulse_ticks_every_three_turns_behind_a_blocking_worker` pins), each tick
/// three blocking chunks after the one before.
#[test]
fn cpython_pulse_ticks_every_three_turns_behind_a_blocking_worker() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio, time, asyncio.base_events as b
turn = 0
run_once = b.BaseEventLoop._run_once
def counted(loop):
    global turn
    turn += 1
    run_once(loop)
b.BaseEventLoop._run_once = counted
chunks = 0
ticks = []
async def pulse(done):
    while not done[0]:
        ticks.append((turn, chunks, time.monotonic()))
        await asyncio.sleep(0.01)
async def worker(done):
    global chunks
    for _ in range(10):
        time.sleep(0.1)
        chunks += 1
        await asyncio.sleep(0)
    done[0] = True
async def main():
    done = [False]
    ticking = asyncio.create_task(pulse(done))
    working = asyncio.create_task(worker(done))
    await working
    await ticking
asyncio.run(main())
print('ticks', len(ticks))
print('turns', *[t for t, _, _ in ticks])
print('chunks before each tick', *[c for _, c, _ in ticks])
gaps = [later - earlier for (_, _, earlier), (_, _, later) in zip(ticks, ticks[1:])]
print('every gap at least 0.3 s', all(gap >= 0.3 for gap in gaps))
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "ticks 4",
            "turns 2 4 7 10",
            "chunks before each tick 0 3 6 9",
            "every gap at least 0.3 s True",
        ]
    );
}

/// The script both stream checks below stand for: a peer that sent `a\nb` and closed
/// its writing half before the connection was wrapped in streams, and three
/// `readline`s, each timed in turns by a callback that queues itself again.
const STREAM_DATA_WAITING: &str = "\
import asyncio, socket
async def main():
    loop = asyncio.get_running_loop()
    listener = socket.create_server(('127.0.0.1', 0))
    ours = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    listener.close()
    peer.sendall(b'a\\nb')
    peer.shutdown(socket.SHUT_WR)
    reader, writer = await asyncio.open_connection(sock=ours)
    turns = 0
    def tick():
        nonlocal turns
        turns += 1
        loop.call_soon(tick)
    loop.call_soon(tick)
    for _ in range(3):
        start = turns
        line = await reader.readline()
        print('readline gave', line, 'after', turns - start, 'turns')
    writer.close()
    peer.close()
asyncio.run(main())
";

/// Chapter 6.4 on asyncio's streams: the transport's reader callback is what feeds the
/// `StreamReader`, so a `readline` of a line that is already in the kernel still waits
/// for the turn after; so does the partial line the end of file completes. The third
/// finds the end of file in the buffer and returns at once.
#[test]
fn cpython_stream_readline_of_data_already_there_waits_a_turn() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let printed =
        truth::run_code(STREAM_DATA_WAITING).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        printed,
        [
            "readline gave b'a\\n' after 1 turns",
            "readline gave b'b' after 1 turns",
            "readline gave b'' after 0 turns",
        ]
    );
}

/// The same program on oneloop (`STREAM_DATA_WAITING`): its reader reads in the task's
/// own step, so the line already in the kernel comes back in the step that asked for
/// it. The short read that took it also took all there was, so the next `read_line`
/// waits for readiness, and the end of file comes a turn later: the cut line, as
/// `Incomplete` (asyncio returns it), then `None` at once.
#[test]
fn oneloop_stream_read_line_of_data_already_there_takes_no_turn() {
    use std::cell::Cell;
    use std::io::Write;
    use std::rc::Rc;
    fn tick(turns: Rc<Cell<u32>>) {
        turns.set(turns.get() + 1);
        truth::current().call_soon_named("tick", move || tick(turns));
    }
    let printed = watchdog_default(|| {
        let mut event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        let printed = event_loop
            .run_until_complete(async {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
                let ours = std::net::TcpStream::connect(listener.local_addr().expect("an address"))
                    .expect("a connection");
                let (mut peer, _) = listener.accept().expect("accepted");
                peer.write_all(b"a\nb").expect("the peer sends");
                peer.shutdown(std::net::Shutdown::Write)
                    .expect("the peer closes its writing half");
                let ours = oneloop_io::TcpStream::from_std(ours).expect("non-blocking");
                let (mut reader, _writer) = ours.into_streams();
                let turns = Rc::new(Cell::new(0));
                let ticker = Rc::clone(&turns);
                truth::current().call_soon_named("tick", move || tick(ticker));
                let mut printed = Vec::new();
                for _ in 0..3 {
                    let start = turns.get();
                    let line = match reader.read_line().await {
                        Ok(Some(line)) => format!("line {line:?}"),
                        Ok(None) => "end of file".to_string(),
                        Err(oneloop_io::StreamError::Incomplete { partial, .. }) => {
                            format!("incomplete {:?}", String::from_utf8_lossy(&partial))
                        }
                        Err(error) => panic!("read_line fails: {error}"),
                    };
                    printed.push(format!("{line} after {} turns", turns.get() - start));
                }
                printed
            })
            .expect("main finishes");
        event_loop.close();
        printed
    });
    assert_eq!(
        printed,
        [
            "line \"a\\n\" after 0 turns",
            "incomplete \"b\" after 1 turns",
            "end of file after 0 turns",
        ]
    );
}

/// What the two accept checks below print: the clients in the order their handlers
/// started and read, and whether each of the two happened all in one turn.
const ACCEPT_ORDER: [&str; 2] = [
    "handlers start 0 1 2, in one turn: True",
    "handlers read 0 1 2, in one turn: True",
];

/// Chapter 6.5 on asyncio's server: three clients waiting in the backlog, each having
/// sent its number, are accepted by one run of the accept callback; their handlers
/// start in the order the clients connected, all in one turn, and read in that order,
/// all in the next.
#[test]
fn cpython_accepts_a_waiting_burst_in_connect_order() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio, socket
async def main():
    loop = asyncio.get_running_loop()
    listener = socket.create_server(('127.0.0.1', 0))
    clients = []
    for i in range(3):
        c = socket.create_connection(listener.getsockname())
        c.sendall(str(i).encode())
        clients.append(c)
    ports = [c.getsockname()[1] for c in clients]
    turns = 0
    def tick():
        nonlocal turns
        turns += 1
        loop.call_soon(tick)
    loop.call_soon(tick)
    starts, reads = [], []
    done = loop.create_future()
    async def handler(reader, writer):
        starts.append((ports.index(writer.get_extra_info('peername')[1]), turns))
        data = await reader.read(1)
        reads.append((int(data), turns))
        writer.close()
        if len(reads) == 3:
            done.set_result(None)
    server = await asyncio.start_server(handler, sock=listener)
    await done
    for name, seen in (('start', starts), ('read', reads)):
        order = ' '.join(str(i) for i, _ in seen)
        one_turn = len({t for _, t in seen}) == 1
        print(f'handlers {name} {order}, in one turn: {one_turn}')
    server.close()
    for c in clients:
        c.close()
asyncio.run(main())
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(printed, ACCEPT_ORDER);
}

/// The same program on oneloop's `serve`: one step accepts the three, and the
/// handlers, spawned in accept order, start in the next turn; each reads its byte,
/// already there, in its first step.
#[test]
fn oneloop_serve_accepts_a_waiting_burst_in_connect_order() {
    use std::cell::RefCell;
    use std::io::Write;
    use std::rc::Rc;
    let printed = watchdog_default(|| {
        let mut event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        let printed = event_loop
            .run_until_complete(async {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
                let address = listener.local_addr().expect("its address");
                let mut clients = Vec::new();
                for i in 0..3 {
                    let mut client = std::net::TcpStream::connect(address).expect("a client");
                    client
                        .write_all(i.to_string().as_bytes())
                        .expect("the client sends its number");
                    clients.push(client);
                }
                let ports: Vec<u16> = clients
                    .iter()
                    .map(|c| c.local_addr().expect("an address").port())
                    .collect();
                let listener = oneloop_io::TcpListener::from_std(listener).expect("non-blocking");
                let starts = Rc::new(RefCell::new(Vec::new()));
                let reads = Rc::new(RefCell::new(Vec::new()));
                let done = oneloop_future::OneShot::<(), ()>::new();
                let turn = || truth::current().turn();
                let (s, r, d) = (Rc::clone(&starts), Rc::clone(&reads), done.clone());
                let server =
                    oneloop_core::spawn(oneloop_io::serve(listener, move |stream, peer| {
                        let index = ports
                            .iter()
                            .position(|&p| p == peer.port())
                            .expect("a client");
                        let (s, r, d) = (Rc::clone(&s), Rc::clone(&r), d.clone());
                        async move {
                            s.borrow_mut().push((index, turn()));
                            let mut byte = [0; 1];
                            let n = stream.read(&mut byte).await.expect("the client's number");
                            let number = std::str::from_utf8(&byte[..n]).expect("a digit");
                            r.borrow_mut()
                                .push((number.parse::<usize>().expect("a digit"), turn()));
                            if r.borrow().len() == 3 {
                                d.set_result(()).expect("set once");
                            }
                        }
                    }));
                done.wait().await.expect("the handlers set it");
                drop(server);
                let mut printed = Vec::new();
                for (name, seen) in [("start", &starts), ("read", &reads)] {
                    let seen = seen.borrow();
                    let order: Vec<String> = seen.iter().map(|(i, _)| i.to_string()).collect();
                    let one_turn = seen.iter().all(|&(_, t)| t == seen[0].1);
                    let one_turn = if one_turn { "True" } else { "False" };
                    printed.push(format!(
                        "handlers {name} {}, in one turn: {one_turn}",
                        order.join(" ")
                    ));
                }
                printed
            })
            .expect("main finishes");
        event_loop.close();
        printed
    });
    assert_eq!(printed, ACCEPT_ORDER);
}

/// What the two drain checks below print.
const DRAIN_WAKE: [&str; 2] = [
    "paused after write: True",
    "drain returned in the turn the first tick saw the buffer at the low mark: True",
];

/// Chapter 6.4 on asyncio's `drain`: 8 MiB written at once pause the writer; a peer
/// reads everything in a reader callback. A callback that queues itself again, and so
/// runs before each turn's I/O callbacks, notes the first turn that finds the buffer at
/// the low mark: the writer callback brought it there in the turn before, and `drain`
/// returns in that same turn, one hop after the writer callback.
#[test]
fn cpython_drain_returns_the_turn_after_the_writer_callback_reaches_the_low_mark() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio, socket
async def main():
    loop = asyncio.get_running_loop()
    listener = socket.create_server(('127.0.0.1', 0))
    ours = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    listener.close()
    peer.setblocking(False)
    reader, writer = await asyncio.open_connection(sock=ours)
    transport = writer.transport
    low = transport.get_write_buffer_limits()[0]
    turns = 0
    unpaused_at = None
    def tick():
        nonlocal turns, unpaused_at
        turns += 1
        if unpaused_at is None and transport.get_write_buffer_size() <= low:
            unpaused_at = turns
        loop.call_soon(tick)
    def on_peer():
        try:
            while peer.recv(65536):
                pass
        except BlockingIOError:
            pass
    writer.write(b'x' * (8 << 20))
    print('paused after write:', transport.get_write_buffer_size() > 64 * 1024)
    loop.add_reader(peer, on_peer)
    loop.call_soon(tick)
    await writer.drain()
    print('drain returned in the turn the first tick saw the buffer at the low mark:',
          turns == unpaused_at)
    loop.remove_reader(peer)
    writer.close()
    peer.close()
asyncio.run(main())
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(printed, DRAIN_WAKE);
}

/// The same program on oneloop's `StreamWriter`: its writer callback wakes the task in
/// `drain`, whose step comes in the next turn, as in asyncio.
#[test]
fn oneloop_drain_returns_the_turn_after_the_writer_callback_reaches_the_low_mark() {
    use std::cell::{Cell, RefCell};
    use std::io::Read;
    use std::rc::Rc;
    fn tick(turns: Rc<Cell<u32>>, check: Rc<dyn Fn(u32)>) {
        turns.set(turns.get() + 1);
        check(turns.get());
        truth::current().call_soon_named("tick", move || tick(turns, check));
    }
    let printed = watchdog_default(|| {
        let mut event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        let printed =
            event_loop
                .run_until_complete(async {
                    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
                    let ours =
                        std::net::TcpStream::connect(listener.local_addr().expect("an address"))
                            .expect("a connection");
                    let (peer, _) = listener.accept().expect("accepted");
                    peer.set_nonblocking(true).expect("non-blocking");
                    let ours = oneloop_io::TcpStream::from_std(ours).expect("non-blocking");
                    let (_reader, writer) = ours.into_streams();
                    let writer = Rc::new(RefCell::new(writer));
                    let turns = Rc::new(Cell::new(0));
                    let unpaused_at = Rc::new(Cell::new(None));
                    let (w, at) = (Rc::clone(&writer), Rc::clone(&unpaused_at));
                    let check: Rc<dyn Fn(u32)> = Rc::new(move |turn| {
                        if at.get().is_none()
                            && w.try_borrow()
                                .is_ok_and(|w| w.buffered() <= oneloop_io::DEFAULT_LOW_WATER)
                        {
                            at.set(Some(turn));
                        }
                    });
                    let peer = Rc::new(peer);
                    let io = oneloop_io::Io::current().expect("an I/O layer");
                    let reading = Rc::clone(&peer);
                    let mut printed = Vec::new();
                    writer
                        .borrow_mut()
                        .write(&vec![b'x'; 8 << 20])
                        .expect("the write is taken");
                    printed.push(format!(
                        "paused after write: {}",
                        if writer.borrow().is_paused() {
                            "True"
                        } else {
                            "False"
                        }
                    ));
                    io.add_reader_named(&*peer, "on_peer", move || {
                        let mut buf = vec![0; 65536];
                        while let Ok(1..) = (&*reading).read(&mut buf) {}
                    })
                    .expect("the peer's reader registers");
                    let ticking = Rc::clone(&turns);
                    truth::current().call_soon_named("tick", move || tick(ticking, check));
                    // Each poll borrows the writer only while it polls a fresh `drain`, so
                    // the tick can read the buffer in between. A `drain` dropped while it
                    // waits loses nothing, and the writer callback wakes the waker it left.
                    std::future::poll_fn(|cx| {
                        let mut writer = writer.borrow_mut();
                        let drain = std::pin::pin!(writer.drain());
                        drain.poll(cx)
                    })
                    .await
                    .expect("nothing failed");
                    printed.push(format!(
                    "drain returned in the turn the first tick saw the buffer at the low mark: {}",
                    if unpaused_at.get() == Some(turns.get()) { "True" } else { "False" }
                ));
                    io.remove_reader(&*peer);
                    printed
                })
                .expect("main finishes");
        event_loop.close();
        printed
    });
    assert_eq!(printed, DRAIN_WAKE);
}

/// Chapter 6.6 on how much one read takes: 100,000 bytes already in the kernel when
/// `readexactly(100000)` starts. asyncio's transport takes them with one `recv` (it asks
/// for up to 256 KiB), and the task has them two turns later, one for the select and
/// one for the wake.
#[test]
fn cpython_one_transport_read_takes_a_100_000_byte_record() {
    truth::python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = "\
import asyncio, socket
async def main():
    loop = asyncio.get_running_loop()
    listener = socket.create_server(('127.0.0.1', 0))
    ours = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    listener.close()
    reader, writer = await asyncio.open_connection(sock=ours)
    turns = 0
    reads = 0
    def tick():
        nonlocal turns
        turns += 1
        loop.call_soon(tick)
    loop.call_soon(tick)
    transport = writer.transport
    data_received = transport._read_ready__data_received
    def counting():
        nonlocal reads
        reads += 1
        data_received()
    transport._read_ready_cb = counting
    peer.sendall(b'x' * 100_000)
    data = await reader.readexactly(100_000)
    print(len(data), 'bytes after', turns, 'turns and', reads, 'reads')
    writer.close()
    peer.close()
asyncio.run(main())
";
    let printed = truth::run_code(script).unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(printed, ["100000 bytes after 2 turns and 1 reads"]);
}

/// The same record on oneloop: `read_exact(100000)` over a stream that counts its
/// reads. One read asks for as much as asyncio's `recv` does, so it takes the whole
/// record, in the step that asked for it (the reader reads in the task's step). The
/// same stream with each read cut to 8 KiB takes it in 13 reads, one per turn.
#[test]
fn oneloop_reads_a_100_000_byte_record_8_kib_a_turn() {
    use std::cell::Cell;
    use std::io::Write;
    use std::rc::Rc;
    /// A stream that counts its reads and asks for at most `cap` bytes in each.
    struct Counting {
        stream: oneloop_io::TcpStream,
        reads: Rc<Cell<u32>>,
        cap: usize,
    }
    impl oneloop_io::AsyncRead for Counting {
        async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let len = buf.len().min(self.cap);
            let n = self.stream.read(&mut buf[..len]).await?;
            self.reads.set(self.reads.get() + 1);
            Ok(n)
        }
    }
    fn tick(turns: Rc<Cell<u32>>) {
        turns.set(turns.get() + 1);
        truth::current().call_soon_named("tick", move || tick(turns));
    }
    async fn record(cap: usize) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
        let ours = std::net::TcpStream::connect(listener.local_addr().expect("an address"))
            .expect("a connection");
        let (mut peer, _) = listener.accept().expect("accepted");
        let stream = oneloop_io::TcpStream::from_std(ours).expect("non-blocking");
        let reads = Rc::new(Cell::new(0));
        let counting = Counting {
            stream,
            reads: Rc::clone(&reads),
            cap,
        };
        let mut reader = oneloop_io::StreamReader::new(counting);
        let turns = Rc::new(Cell::new(0));
        let ticker = Rc::clone(&turns);
        truth::current().call_soon_named("tick", move || tick(ticker));
        peer.write_all(&[b'x'; 100_000]).expect("the peer sends");
        let data = reader.read_exact(100_000).await.expect("the whole record");
        format!(
            "{} bytes after {} turns and {} reads",
            data.len(),
            turns.get(),
            reads.get()
        )
    }
    // The reader asks for 8 KiB a read, whatever the stream would give: with the stream
    // uncapped, and with it capped at 8 KiB, the record takes the same reads and turns.
    for (cap, expected) in [
        (usize::MAX, "100000 bytes after 12 turns and 13 reads"),
        (8 * 1024, "100000 bytes after 12 turns and 13 reads"),
    ] {
        let printed = watchdog_default(move || {
            let mut event_loop = oneloop_io::new_event_loop().expect("epoll is available");
            let printed = event_loop
                .run_until_complete(record(cap))
                .expect("main finishes");
            event_loop.close();
            printed
        });
        assert_eq!(printed, expected, "reads of at most {cap} bytes");
    }
}
