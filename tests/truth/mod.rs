//! The machinery of the truth suites: traces, the differences oneloop has on purpose,
//! the comparer and its diff, and running a scenario script on real CPython.
//!
//! A *trace* is a list of lines, one per thing that happened, in the order it happened,
//! with turn numbers and never a time:
//!
//! ```text
//! section=gather-10          a script may run several loops, one per section
//! turn=2 run=task            a handle ran in turn 2; `task` is an unnamed task's step
//! turn=2 event=child-1       the scenario recorded `child-1` during turn 2
//! turn=- event=cleanup       ... or outside any turn (while the loop closes)
//! turns=4                    the loop closed after 4 turns
//! mark=cancel-leftovers      (CPython only) where asyncio.run cancels leftover tasks
//! ```
//!
//! A handle's line comes before the events it recorded. Both sides name a handle the
//! same way: a task's step by the task's name (`main`, or `task` when it has none), a
//! callback by its name (the Python function's name, the Rust label).
//!
//! CPython's trace first has the [`Difference`]s the scenario declares applied to it;
//! then both traces are rendered (runs of identical lines folded into `line xN`) and
//! must be equal, line for line.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Duration;

use crate::external::{self, Interpreter};

use oneloop_core::hooks::{Handle, with_current};
use oneloop_core::{Core, EventLoop, Label, Observer, ParkReport};

/// The longest a scenario script may run before it counts as hung.
const PYTHON_LIMIT: Duration = Duration::from_secs(10);

/// The longest the oneloop side of a scenario may run (under the test kit's watchdog).
pub const ONELOOP_LIMIT: Duration = oneloop_testkit::DEFAULT_LIMIT;

// ---------------------------------------------------------------------------------------
// The oneloop side: a recorder fed by the loop's observer hook.
// ---------------------------------------------------------------------------------------

/// Records a oneloop trace. The turn numbers come only from the loop's observer hook:
/// `turn_started` and `turn_ended` say when a turn runs, `handle_ran` names each handle.
#[derive(Debug, Default)]
pub struct Recorder {
    lines: RefCell<Vec<String>>,
    /// The turn running now, if any.
    turn: Cell<Option<u64>>,
    /// Turns started on the current loop.
    turns: Cell<u64>,
    /// Where the running handle's line goes: where the trace stood when it started,
    /// before the events it records (and after those recorded before it started).
    handle_at: Cell<usize>,
}

impl Observer for Recorder {
    fn turn_started(&self, turn: u64) {
        self.turn.set(Some(turn));
        self.turns.set(self.turns.get() + 1);
    }

    fn handle_started(&self, _turn: u64, _handle: &Handle) {
        self.handle_at.set(self.lines.borrow().len());
    }

    // What another observer records after this one hears that a handle ran (debug
    // mode's report of a slow handle) stays after that handle's line and events, as
    // on the Python side, where the loop logs it once the handle has returned.
    fn handle_ran(&self, turn: u64, label: &Label, _elapsed: Duration) {
        self.lines.borrow_mut().insert(
            self.handle_at.get(),
            format!("turn={turn} run={}", label_name(label)),
        );
    }

    fn turn_ended(&self, _turn: u64, _park: &ParkReport, _handles: usize) {
        self.turn.set(None);
    }
}

/// oneloop labels whose handle plays the part of an asyncio function with another name,
/// and that name: the same step in both loops, named as CPython names it.
///
/// - A `sleep`'s timer completes the sleep, as asyncio's sleep timer runs
///   `futures._set_result_unless_cancelled` on the future the sleep awaits.
/// - The callback a pool worker hands back through `call_soon_threadsafe` completes the
///   awaited future, as `futures._set_state` does at the end of asyncio's future chain.
pub const CPYTHON_NAMES: [(&str, &str); 2] = [
    ("sleep", "_set_result_unless_cancelled"),
    ("run_in_executor result", "_set_state"),
];

/// How the suite names a label: an unnamed task (shown by its id) is `task`, as an
/// unnamed asyncio task is on the Python side; the labels in [`CPYTHON_NAMES`] take
/// CPython's name; any other label is itself.
fn label_name(label: &Label) -> String {
    if let Label::Task(_) = label {
        return "task".to_string();
    }
    let name = label.to_string();
    CPYTHON_NAMES
        .iter()
        .find(|(ours, _)| *ours == name)
        .map_or(name, |(_, theirs)| (*theirs).to_string())
}

impl Recorder {
    /// A new, empty recorder.
    pub fn new() -> Rc<Self> {
        Rc::new(Self::default())
    }

    /// Records `name` in the current turn, or outside any turn (`turn=-`).
    pub fn event(&self, name: impl AsRef<str>) {
        let turn = self
            .turn
            .get()
            .map_or_else(|| "-".to_string(), |turn| turn.to_string());
        self.lines
            .borrow_mut()
            .push(format!("turn={turn} event={}", name.as_ref()));
    }

    /// Starts a section: the next loop counts its turns from 1.
    pub fn section(&self, name: &str) {
        self.lines.borrow_mut().push(format!("section={name}"));
    }

    /// A new loop that this recorder observes. Closing it records `turns=N`.
    pub fn event_loop(self: &Rc<Self>) -> EventLoop {
        let event_loop = EventLoop::new();
        self.attach(event_loop.core());
        event_loop
    }

    /// Makes this recorder observe `core`'s loop: every turn and handle, and `turns=N`
    /// when it closes. `run_with(|l| rec.attach(l.core()), main)` observes a whole
    /// `run`, from its first turn.
    pub fn attach(self: &Rc<Self>, core: &Core) {
        self.turns.set(0);
        core.add_observer(Rc::clone(self) as Rc<dyn Observer>);
        let recorder = Rc::clone(self);
        core.add_close_hook("truth trace", move || {
            let turns = recorder.turns.replace(0);
            recorder.lines.borrow_mut().push(format!("turns={turns}"));
        });
    }

    /// Makes the loop's exception handler record `exception:LABEL:MESSAGE`, as the
    /// Python helper's `report_exceptions` does.
    pub fn report_exceptions(self: &Rc<Self>, core: &Core) {
        let recorder = Rc::clone(self);
        core.set_exception_handler(move |report| {
            recorder.event(format!(
                "exception:{}:{}",
                label_name(&report.label),
                report.panic
            ));
        });
    }

    /// The trace so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.borrow().clone()
    }
}

/// The loop running a turn on this thread (for code inside a callback or a task).
pub fn current() -> Rc<Core> {
    with_current(Rc::clone).expect("called from inside a running loop")
}

// ---------------------------------------------------------------------------------------
// Traces, and the differences oneloop has on purpose.
// ---------------------------------------------------------------------------------------

/// One line of a trace, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Run { turn: u64, name: String },
    Event { turn: Option<u64>, name: String },
    Section(String),
    Turns(u64),
    Mark(String),
}

fn parse_line(line: &str) -> Result<Entry, String> {
    let bad = || format!("not a trace line: {line:?}");
    if let Some(name) = line.strip_prefix("section=") {
        return Ok(Entry::Section(name.to_string()));
    }
    if let Some(name) = line.strip_prefix("mark=") {
        return Ok(Entry::Mark(name.to_string()));
    }
    if let Some(count) = line.strip_prefix("turns=") {
        return count.parse().map(Entry::Turns).map_err(|_| bad());
    }
    let rest = line.strip_prefix("turn=").ok_or_else(bad)?;
    let (turn, what) = rest.split_once(' ').ok_or_else(bad)?;
    let turn = match turn {
        "-" => None,
        number => Some(number.parse::<u64>().map_err(|_| bad())?),
    };
    if let Some(name) = what.strip_prefix("run=") {
        let turn = turn.ok_or_else(bad)?;
        return Ok(Entry::Run {
            turn,
            name: name.to_string(),
        });
    }
    if let Some(name) = what.strip_prefix("event=") {
        return Ok(Entry::Event {
            turn,
            name: name.to_string(),
        });
    }
    Err(bad())
}

fn parse(lines: &[String]) -> Result<Vec<Entry>, String> {
    lines.iter().map(|line| parse_line(line)).collect()
}

fn render_entry(entry: &Entry) -> String {
    match entry {
        Entry::Run { turn, name } => format!("turn={turn} run={name}"),
        Entry::Event {
            turn: Some(turn),
            name,
        } => format!("turn={turn} event={name}"),
        Entry::Event { turn: None, name } => format!("turn=- event={name}"),
        Entry::Section(name) => format!("section={name}"),
        Entry::Turns(count) => format!("turns={count}"),
        Entry::Mark(name) => format!("mark={name}"),
    }
}

/// Renders entries, folding a run of identical lines into one `line xN`.
fn render(entries: &[Entry]) -> Vec<String> {
    fold(entries.iter().map(render_entry))
}

/// Folds each run of identical lines into one `line xN`.
fn fold(lines: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for line in lines {
        match out.last_mut() {
            Some((last, count)) if *last == line => *count += 1,
            _ => out.push((line, 1)),
        }
    }
    out.into_iter()
        .map(|(line, count)| {
            if count == 1 {
                line
            } else {
                format!("{line} x{count}")
            }
        })
        .collect()
}

// ANCHOR: differences
/// A way oneloop differs from CPython on purpose. A scenario declares the ones that
/// apply; each is a rewrite of CPython's trace into what oneloop does instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Difference {
    /// `asyncio.run` ends with `shutdown_asyncgens` and `shutdown_default_executor`,
    /// each run by `run_until_complete`: the task's turns, then its stop callback's
    /// turn. With a default executor started, `shutdown_default_executor` waits for a
    /// thread that joins the pool and comes back through `call_soon_threadsafe`
    /// (`set_result`), so its task takes two steps with that turn between them.
    /// oneloop has no async generators, and its thread pool shuts down from a close
    /// hook. Rewrite: every turn from the first step of such a task to the turn of the
    /// `_run_until_complete_cb` that follows it is removed.
    ShutdownTurns,
    /// `gather` hangs a done callback (`_done_callback`) on every child, and the last
    /// one completes the outer future, which then wakes the awaiting task: one hop more
    /// than a task join. oneloop's `gather` holds the children's join handles, which
    /// wake the awaiting task directly. Rewrite: `_done_callback` handles are removed,
    /// and a turn left with nothing is removed.
    GatherDoneCallbackHop,
    /// `asyncio.run` cancels leftover tasks by throwing `CancelledError` into them and
    /// running turns until they finish. oneloop drops them when the loop closes, with
    /// no turn. Rewrite: the turns between `mark=cancel-leftovers` and
    /// `mark=cancelled-leftovers` are removed; the events recorded in them stay, outside
    /// any turn (a drop runs the same cleanup, at close).
    CancelBecomesDrop,
    /// asyncio's `TimerHandle` compares by `when` alone and `heapq` is not stable, so
    /// timers sharing a deadline leave the heap in an order of its own (five run
    /// 0 2 4 1 3). oneloop orders its heap by `(when, seq)`: scheduling order.
    /// Rewrite: in each turn, a run of handles named `tie_<n>` (each with the events
    /// it recorded) is sorted by `n`.
    TiesInSchedulingOrder,
    /// asyncio's `call_soon_threadsafe` writes a byte to the self-pipe, whose read end
    /// is a reader of the loop: the next select runs `_read_from_self` to drain it.
    /// oneloop's inbox is woken through an eventfd that the I/O driver consumes
    /// without queueing a handle. Rewrite: `_read_from_self` handles are removed, and
    /// a turn left with nothing is removed.
    SelfPipeRead,
    /// asyncio's `run_in_executor` chains a `concurrent.futures.Future` to an asyncio
    /// future; completing the asyncio future also runs `_call_check_cancel`, which
    /// would pass a cancellation back to the pool's future. oneloop's `Offloaded` has
    /// one completion and no second future (dropping it does not stop the job).
    /// Rewrite: `_call_check_cancel` handles are removed, and a turn left with nothing
    /// is removed.
    ChainCancelCheck,
    /// `asyncio.timeout` arms its own timer, `Timeout._on_timeout`, which cancels the
    /// task; the task's next step gets `CancelledError` and leaves as `TimeoutError`.
    /// oneloop's `timeout` races the inner future against a `sleep`: the sleep's timer
    /// wakes the task, whose next step drops the inner future and returns `TimedOut`.
    /// Same turns; the timer's handle is the sleep's. Rewrite: `_on_timeout` becomes
    /// `_set_result_unless_cancelled`, the sleep timer's name.
    TimeoutFiresASleep,
    /// asyncio's `shield` returns an outer future tied to the inner one by two done
    /// callbacks. Cancelling the outer runs `_outer_done_callback` in the same turn as
    /// the awaiting task's step; an inner task that ends runs `_inner_done_callback` in
    /// the next turn, which completes the outer future, which wakes the awaiting task a
    /// turn later still (and runs `_outer_done_callback` beside it). oneloop's `shield`
    /// is a cancellation point over the task's join, with no future in between: the
    /// task's end wakes the awaiting task directly. Rewrite: `_outer_done_callback`
    /// and `_inner_done_callback` handles are removed, and a turn left with nothing
    /// is removed.
    ShieldOuterCallback,
    /// asyncio's `wait` hangs `_on_completion` on every task, which completes a waiter
    /// future, which wakes the awaiting task: one hop more than a task join
    /// (`as_completed`'s `_on_completion` puts the task in a queue, with the same hop).
    /// oneloop's `wait` registers the awaiting task's waker on each task. Rewrite:
    /// `_on_completion` handles are removed, and a turn left with nothing is removed.
    WaitDoneCallbackHop,
    /// 3.11's `wait_for` arms a timer, `_release_waiter`, that completes a waiter
    /// future; the awaiting task wakes, cancels the inner task, and waits again, on a
    /// done callback (a `partial` of `_release_waiter`), before it raises. 3.12
    /// rewrote `wait_for` on `timeout`, and oneloop follows 3.12: the timer
    /// (`_on_timeout`) cancels the awaiting task, which passes the cancel on to the
    /// task it awaits. Rewrite: `_release_waiter` becomes `_on_timeout`; the handles of
    /// the turn right after it go when that turn records no event (the awaiting task's
    /// wake that only cancels); `partial` handles go; a turn left with nothing goes.
    WaitForReleasesAWaiter,
    /// asyncio's `TaskGroup` keeps its children in a `set`, and `_abort` cancels them
    /// in the set's order, which follows the tasks' hashes (their addresses), not the
    /// order they were created in. oneloop's group keeps a list and cancels in spawn
    /// order. Rewrite: in each turn, a run of handles named `member_<n>` (each with
    /// the events it recorded) is sorted by `n`.
    GroupCancelsInSetOrder,
    /// asyncio's `call_soon_threadsafe` appends to `_ready` at once, as `call_soon`
    /// does, so a call made from another thread runs among the loop's own handles in
    /// the order the calls were made, and before the I/O and timers of the next select.
    /// oneloop's ready queue belongs to the loop's thread: another thread's call waits
    /// in the inbox, and the park queues it after that park's I/O and due timers, at
    /// the end of the next turn. Rewrite: in each turn, the handles named
    /// `from_thread_<n>` (each with the events it recorded) move to the end of the
    /// turn, in their order.
    ThreadSafeCallsAtThePark,
    /// asyncio's `sock_recv`, when its first `recv` would block, registers a reader,
    /// `_sock_recv`, that does the read and completes a future; the awaiting task
    /// resumes a turn later, beside the future's other done callback (a `partial` of
    /// `_sock_read_done`, which removes the reader). oneloop's readiness future does no
    /// I/O: the event wakes the task, and its next step reads. Rewrite: `_sock_recv`
    /// and `partial` handles are removed, and a turn left with nothing is removed.
    SockRecvCallbackHop,
    /// asyncio's streams sit on a transport. `open_connection(sock=...)` makes one and
    /// awaits a waiter: the next turn runs `connection_made`, `_add_reader` and
    /// `_set_result_unless_cancelled`, and the task resumes in the turn after. The
    /// transport's reader callback, `_read_ready`, reads and feeds the `StreamReader`,
    /// which wakes the waiting task a turn later; `close` ends in a callback,
    /// `_call_connection_lost`. oneloop's `into_streams` wraps the socket in the same
    /// step, its reader reads in the task's own step (the readiness event wakes the
    /// task), and dropping the writer closes the socket. Rewrite: the set-up turn goes,
    /// and the task's step that resumes after it joins the step that opened the
    /// connection (its run line goes, its events move back); `_read_ready` and
    /// `_call_connection_lost` handles go, and a turn left with nothing goes.
    StreamTransport,
}
// ANCHOR_END: differences

impl Difference {
    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Difference::ShutdownTurns => "shutdown turns",
            Difference::GatherDoneCallbackHop => "gather's done-callback hop",
            Difference::CancelBecomesDrop => "cancel becomes drop",
            Difference::TiesInSchedulingOrder => "ties in scheduling order",
            Difference::SelfPipeRead => "self-pipe read",
            Difference::ChainCancelCheck => "chained future's cancel check",
            Difference::TimeoutFiresASleep => "timeout fires a sleep",
            Difference::ShieldOuterCallback => "shield's outer-future callbacks",
            Difference::WaitDoneCallbackHop => "wait's done-callback hop",
            Difference::WaitForReleasesAWaiter => "3.11 wait_for's waiter",
            Difference::GroupCancelsInSetOrder => "group cancels in set order",
            Difference::ThreadSafeCallsAtThePark => "thread-safe calls at the park",
            Difference::SockRecvCallbackHop => "sock_recv's reader callback",
            Difference::StreamTransport => "streams' transport callbacks",
        }
    }
}

/// The tasks asyncio.run's shutdown runs after main, as the helper names them.
const SHUTDOWN_TASKS: [&str; 2] = [
    "BaseEventLoop.shutdown_asyncgens",
    "BaseEventLoop.shutdown_default_executor",
];

fn turn_of(entry: &Entry) -> Option<u64> {
    match entry {
        Entry::Run { turn, .. } => Some(*turn),
        Entry::Event { turn, .. } => *turn,
        _ => None,
    }
}

/// The handle names a difference removes from CPython's trace (asyncio's own
/// callbacks, which record no events).
fn removed_handle(name: &str, differences: &[Difference]) -> bool {
    let has = |d: Difference| differences.contains(&d);
    (has(Difference::GatherDoneCallbackHop) && name == "_done_callback")
        || (has(Difference::SelfPipeRead) && name == "_read_from_self")
        || (has(Difference::ChainCancelCheck) && name == "_call_check_cancel")
        || (has(Difference::ShieldOuterCallback)
            && (name == "_outer_done_callback" || name == "_inner_done_callback"))
        || (has(Difference::WaitDoneCallbackHop) && name == "_on_completion")
        || (has(Difference::WaitForReleasesAWaiter) && name == "partial")
        || (has(Difference::SockRecvCallbackHop) && (name == "_sock_recv" || name == "partial"))
        || (has(Difference::StreamTransport)
            && (name == "_read_ready" || name == "_call_connection_lost"))
}

/// The `n` of a handle named `<prefix><n>`.
fn numbered(entry: &Entry, prefix: &str) -> Option<u64> {
    match entry {
        Entry::Run { name, .. } => name.strip_prefix(prefix)?.parse().ok(),
        _ => None,
    }
}

/// Sorts each run of `<prefix><n>` handles within one turn by `n`, each handle keeping
/// the events it recorded.
fn sort_numbered(entries: &[Entry], prefix: &str) -> Vec<Entry> {
    let tie_number = |entry: &Entry| numbered(entry, prefix);
    let mut out = Vec::new();
    let mut index = 0;
    while index < entries.len() {
        if tie_number(&entries[index]).is_none() {
            out.push(entries[index].clone());
            index += 1;
            continue;
        }
        let turn = turn_of(&entries[index]);
        let mut blocks: Vec<(u64, Vec<Entry>)> = Vec::new();
        while let Some(number) = entries.get(index).and_then(&tie_number) {
            if turn_of(&entries[index]) != turn {
                break;
            }
            let mut block = vec![entries[index].clone()];
            index += 1;
            while let Some(event @ Entry::Event { .. }) = entries.get(index) {
                if turn_of(event) != turn {
                    break;
                }
                block.push(event.clone());
                index += 1;
            }
            blocks.push((number, block));
        }
        blocks.sort_by_key(|(number, _)| *number);
        out.extend(blocks.into_iter().flat_map(|(_, block)| block));
    }
    out
}

/// Moves the `<prefix><n>` handles of each turn, each with the events it recorded, to
/// the end of that turn, keeping their order.
fn move_to_turn_end(entries: &[Entry], prefix: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut moved: Vec<Entry> = Vec::new();
    // The turn being read, and whether the current handle's events move with it.
    let mut turn = None;
    let mut moving = false;
    for entry in entries {
        let entry_turn = turn_of(entry);
        if entry_turn != turn {
            out.append(&mut moved);
            turn = entry_turn;
            moving = false;
        }
        if let Entry::Run { .. } = entry {
            moving = numbered(entry, prefix).is_some();
        }
        if moving && entry_turn.is_some() {
            moved.push(entry.clone());
        } else {
            out.push(entry.clone());
        }
    }
    out.append(&mut moved);
    out
}

/// The handles of the turn in which asyncio's `open_connection(sock=...)` sets its
/// transport up.
const TRANSPORT_SETUP: [&str; 3] = [
    "connection_made",
    "_add_reader",
    "_set_result_unless_cancelled",
];

/// For [`Difference::StreamTransport`]: takes out each turn that runs a transport's
/// `connection_made` (with the rest of its set-up) and the turn after it, in which the
/// task that opened the connection resumes: that step's run line goes, and its events
/// move back to the turn the task opened the connection in. Returns the entries and
/// the two turns of each set-up, now empty, for the caller to drop.
fn merge_transport_setup(entries: &[Entry]) -> (Vec<Entry>, BTreeSet<u64>) {
    let setups: BTreeSet<u64> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Run { turn, name } if name == "connection_made" => Some(*turn),
            _ => None,
        })
        .collect();
    let mut emptied = BTreeSet::new();
    let mut out = Vec::new();
    // Whether the resumed step's run line was dropped yet, per set-up turn.
    let mut resumed = BTreeSet::new();
    for entry in entries {
        let Some(turn) = turn_of(entry) else {
            out.push(entry.clone());
            continue;
        };
        if setups.contains(&turn) {
            let setup_handle = matches!(entry, Entry::Run { name, .. }
                if TRANSPORT_SETUP.contains(&name.as_str()));
            assert!(
                setup_handle,
                "the set-up turn {turn} runs only the set-up: {entry:?}"
            );
            emptied.insert(turn);
            continue;
        }
        if turn > 1 && setups.contains(&(turn - 1)) {
            emptied.insert(turn);
            if matches!(entry, Entry::Run { .. }) && resumed.insert(turn) {
                continue;
            }
            out.push(match entry {
                Entry::Run { name, .. } => Entry::Run {
                    turn: turn - 2,
                    name: name.clone(),
                },
                Entry::Event { name, .. } => Entry::Event {
                    turn: Some(turn - 2),
                    name: name.clone(),
                },
                other => other.clone(),
            });
            continue;
        }
        out.push(entry.clone());
    }
    (out, emptied)
}

/// Applies `differences` to one loop's entries (up to and including its `turns=N`).
fn apply_to_loop(entries: &[Entry], differences: &[Difference]) -> Vec<Entry> {
    let has = |d: Difference| differences.contains(&d);
    // First the rewrites that rename or reorder; then whole turns and handles go.
    let mut entries = entries.to_vec();
    if has(Difference::TimeoutFiresASleep) {
        for entry in &mut entries {
            if let Entry::Run { name, .. } = entry
                && name == "_on_timeout"
            {
                *name = "_set_result_unless_cancelled".to_string();
            }
        }
    }
    if has(Difference::TiesInSchedulingOrder) {
        entries = sort_numbered(&entries, "tie_");
    }
    if has(Difference::GroupCancelsInSetOrder) {
        entries = sort_numbered(&entries, "member_");
    }
    if has(Difference::ThreadSafeCallsAtThePark) {
        entries = move_to_turn_end(&entries, "from_thread_");
    }
    // The turns right after a `_release_waiter`, when they record no event.
    let mut waiter_wakes = BTreeSet::new();
    if has(Difference::WaitForReleasesAWaiter) {
        for entry in &mut entries {
            if let Entry::Run { turn, name } = entry
                && name == "_release_waiter"
            {
                *name = "_on_timeout".to_string();
                waiter_wakes.insert(*turn + 1);
            }
        }
        waiter_wakes.retain(|turn| {
            !entries
                .iter()
                .any(|e| matches!(e, Entry::Event { turn: Some(t), .. } if t == turn))
        });
    }
    let mut merged = BTreeSet::new();
    if has(Difference::StreamTransport) {
        (entries, merged) = merge_transport_setup(&entries);
    }
    let is_removed =
        |e: &Entry| matches!(e, Entry::Run { name, .. } if removed_handle(name, differences));
    let mut dropped = waiter_wakes;
    dropped.extend(merged);
    let mut events_kept = BTreeSet::new();
    let mut between_marks = false;
    let mut in_shutdown = false;
    for entry in &entries {
        match entry {
            Entry::Mark(mark) if mark == "cancel-leftovers" => between_marks = true,
            Entry::Mark(mark) if mark == "cancelled-leftovers" => between_marks = false,
            Entry::Run { turn, name } => {
                if has(Difference::ShutdownTurns) {
                    if SHUTDOWN_TASKS.contains(&name.as_str()) {
                        in_shutdown = true;
                    }
                    if in_shutdown {
                        dropped.insert(*turn);
                        // The stop callback of that shutdown task's `run_until_complete`.
                        in_shutdown = name != "_run_until_complete_cb";
                    }
                }
                if has(Difference::CancelBecomesDrop) && between_marks {
                    dropped.insert(*turn);
                    events_kept.insert(*turn);
                }
            }
            _ => {}
        }
    }
    // A turn that ran only removed handles (and recorded nothing) disappears.
    let turns: BTreeSet<u64> = entries.iter().filter_map(turn_of).collect();
    for turn in turns {
        let mut in_turn = entries.iter().filter(|e| turn_of(e) == Some(turn));
        if in_turn.all(is_removed) {
            dropped.insert(turn);
        }
    }
    let renumber = |turn: u64| turn - dropped.range(..turn).count() as u64;
    let mut out = Vec::new();
    for entry in &entries {
        match entry {
            Entry::Mark(_) => {}
            e if is_removed(e) => {}
            Entry::Run { turn, .. } if dropped.contains(turn) => {}
            Entry::Run { turn, name } => out.push(Entry::Run {
                turn: renumber(*turn),
                name: name.clone(),
            }),
            Entry::Event {
                turn: Some(turn),
                name,
            } if dropped.contains(turn) => {
                if events_kept.contains(turn) {
                    out.push(Entry::Event {
                        turn: None,
                        name: name.clone(),
                    });
                }
            }
            Entry::Event {
                turn: Some(turn),
                name,
            } => out.push(Entry::Event {
                turn: Some(renumber(*turn)),
                name: name.clone(),
            }),
            Entry::Turns(count) => out.push(Entry::Turns(count - dropped.len() as u64)),
            other => out.push(other.clone()),
        }
    }
    out
}

/// Applies `differences` to a whole trace, loop by loop. Marks always go: they are
/// notes for the rewrites, with no counterpart in oneloop.
fn apply(entries: &[Entry], differences: &[Difference]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut start = 0;
    for (index, entry) in entries.iter().enumerate() {
        if matches!(entry, Entry::Turns(_)) {
            out.extend(apply_to_loop(&entries[start..=index], differences));
            start = index + 1;
        }
    }
    out.extend(apply_to_loop(&entries[start..], differences));
    out
}

// ---------------------------------------------------------------------------------------
// The comparer.
// ---------------------------------------------------------------------------------------

/// Compares two rendered traces line by line; on a difference, the error is the side
/// by side listing of [`external::side_by_side`], headed `CPython` and `oneloop`.
pub fn compare(cpython: &[String], oneloop: &[String]) -> Result<(), String> {
    external::side_by_side("CPython", cpython, oneloop)
}

// ---------------------------------------------------------------------------------------
// Running CPython.
// ---------------------------------------------------------------------------------------

/// The folder of scenario scripts.
pub fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/asyncio")
}

/// CPython, as every machine here and CI has it.
const PYTHON: Interpreter = Interpreter {
    program: "python3",
    missing: "python3 is required: the truth suite runs every scenario on real CPython \
              asyncio (3.11, as in CI) and compares. Install it and put `python3` on the \
              PATH: on Debian or Ubuntu, `apt-get install python3`; elsewhere, the \
              installer from python.org.",
    expected: "Python 3.11.",
    suite: "truth_asyncio",
};

/// `python3 --version`, asked once per test run and shown on stderr, so that every run
/// says which interpreter it checked against.
pub fn python_version() -> Result<String, String> {
    static VERSION: OnceLock<Result<String, String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            PYTHON.announce_version().and_then(|version| {
                if version.starts_with("Python 3.") {
                    Ok(version)
                } else {
                    Err(format!(
                        "`python3 --version` said {version:?}, not a Python 3. {}",
                        PYTHON.missing
                    ))
                }
            })
        })
        .clone()
}

/// Runs `tests/asyncio/<name>.py` and returns the trace it printed.
///
/// `-B` writes no bytecode into the repository, `-E` ignores `PYTHON*` variables (no
/// `PYTHONASYNCIODEBUG` changing the run), `-s` skips the user's site packages. The
/// script's own folder is on `sys.path`, which is how it finds `truthtrace`.
pub fn run_script(name: &str) -> Result<Vec<String>, String> {
    let script = scripts_dir().join(format!("{name}.py"));
    PYTHON.run(&["-B", "-E", "-s"], &script, &[], PYTHON_LIMIT)
}

/// Runs `code` with `python3 -c`, as [`run_script`] runs a script (no bytecode, no
/// `PYTHON*` variables, no user site packages, the same time limit), and returns the
/// lines it printed: for a check of CPython's own source rather than a scenario.
pub fn run_code(code: &str) -> Result<Vec<String>, String> {
    PYTHON.run_in(
        &scripts_dir(),
        &["-B", "-E", "-s", "-c", code],
        "python3 -c",
        &[],
        PYTHON_LIMIT,
    )
}

/// Whether `scenario` runs in a fresh CPython of its own rather than in a child forked
/// by [`forked_traces`]: a scenario whose CPython trace follows objects' addresses (the
/// order of a group's set of tasks). A forked child's heap is laid out otherwise than a
/// fresh process's, so its order may differ.
fn runs_alone(scenario: &Scenario) -> bool {
    scenario
        .differences
        .contains(&Difference::GroupCancelsInSetOrder)
}

/// Whether the test harness will run the test of this name, going by the filters on
/// the command line (`cargo test --test truth_asyncio cancel` runs the scenarios whose
/// test name holds `cancel`): so that a filtered run forks only the scenarios it
/// checks. Only a saving: a scenario left out runs its script alone.
fn selected_by_the_command_line() -> impl Fn(&str) -> bool {
    // The harness's options that take a value as the next argument.
    const WITH_VALUE: [&str; 7] = [
        "--skip",
        "--test-threads",
        "--logfile",
        "--format",
        "--color",
        "--shuffle-seed",
        "-Z",
    ];
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    let mut exact = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--exact" {
            exact = true;
        } else if arg == "--skip" {
            skips.extend(args.next());
        } else if WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            filters.push(arg);
        }
    }
    move |name: &str| {
        let matches = |pattern: &String| {
            if exact {
                name == pattern
            } else {
                name.contains(pattern.as_str())
            }
        };
        (filters.is_empty() || filters.iter().any(matches)) && !skips.iter().any(matches)
    }
}

/// The traces of the scenarios of `all` that this run checks and that do not [run
/// alone](runs_alone), each from a process of its own forked by one CPython
/// (`truthtrace.run_scenarios`): one interpreter's start-up and imports for all of
/// them, once per test run, instead of one per scenario. A child that did not exit with status 0 has no entry: its scenario
/// runs the script alone (`run_script`), which says what went wrong as it always did.
fn forked_traces(all: &'static [Scenario]) -> &'static HashMap<&'static str, Vec<String>> {
    static TRACES: OnceLock<HashMap<&'static str, Vec<String>>> = OnceLock::new();
    TRACES.get_or_init(|| {
        let selected = selected_by_the_command_line();
        let names: Vec<&str> = all
            .iter()
            .filter(|scenario| !runs_alone(scenario))
            .map(|scenario| scenario.name)
            .filter(|name| selected(&format!("scenario::{name}")))
            .collect();
        let limit = PYTHON_LIMIT.as_secs().to_string();
        let mut args = vec![
            "-B",
            "-E",
            "-s",
            "-c",
            "import sys, truthtrace; truthtrace.run_scenarios(float(sys.argv[1]), sys.argv[2:])",
            &limit,
        ];
        args.extend(&names);
        let whole = PYTHON_LIMIT * (names.len() as u32 + 1);
        let Ok(printed) = PYTHON.run_in(&scripts_dir(), &args, "the forked scenarios", &[], whole)
        else {
            return HashMap::new();
        };
        let mut traces = HashMap::new();
        let mut lines = printed.into_iter();
        while let Some(line) = lines.next() {
            let Some(name) = line.strip_prefix("truth-scenario=") else {
                continue;
            };
            let Some(&name) = names.iter().find(|listed| **listed == name) else {
                continue;
            };
            let exited = format!("truth-exit={name} ");
            let mut trace = Vec::new();
            for line in lines.by_ref() {
                match line.strip_prefix(&exited) {
                    Some("0") => {
                        traces.insert(name, trace);
                        break;
                    }
                    Some(_) => break,
                    None => trace.push(line),
                }
            }
        }
        traces
    })
}

// ---------------------------------------------------------------------------------------
// A scenario, and checking it.
// ---------------------------------------------------------------------------------------

/// One program, written twice: `tests/asyncio/<name>.py` on asyncio, `oneloop` in Rust.
#[derive(Debug)]
pub struct Scenario {
    /// The scenario's name: its script is `tests/asyncio/<name>.py`.
    pub name: &'static str,
    /// The same program on oneloop, recording into the recorder it is given.
    pub oneloop: fn(&Rc<Recorder>),
    /// Where oneloop differs on purpose; applied to CPython's trace before comparing.
    pub differences: &'static [Difference],
    /// Lines CPython's own trace must hold, in this order, before any rewrite: the
    /// CPython figures the book quotes, checked on every run.
    pub cpython_says: &'static [&'static str],
}

/// Whether `wanted` appears in `lines` in order (not necessarily next to each other).
fn in_order(lines: &[String], wanted: &[&str]) -> Result<(), String> {
    let mut rest = lines.iter();
    for want in wanted {
        if !rest.any(|line| line == want) {
            return Err(format!("`{want}` (after the lines before it in the list)"));
        }
    }
    Ok(())
}

/// Compares CPython's raw trace, with `scenario`'s differences applied, to oneloop's.
/// Every declared difference must change CPython's trace: one that no longer applies
/// is an error, not a silent no-op.
pub fn verdict(
    scenario: &Scenario,
    cpython_raw: &[String],
    oneloop_raw: &[String],
) -> Result<(), String> {
    let cpython = parse(cpython_raw).map_err(|e| format!("CPython's trace: {e}"))?;
    let oneloop = parse(oneloop_raw).map_err(|e| format!("oneloop's trace: {e}"))?;
    in_order(cpython_raw, scenario.cpython_says)
        .map_err(|missing| format!("CPython's own trace no longer holds {missing}"))?;
    let unchanged = render(&apply(&cpython, &[]));
    for &difference in scenario.differences {
        if render(&apply(&cpython, &[difference])) == unchanged {
            return Err(format!(
                "the declared difference `{}` changes nothing in CPython's trace: \
                 remove it from the scenario, or find out what changed",
                difference.name()
            ));
        }
    }
    let expected = render(&apply(&cpython, scenario.differences));
    let actual = render(&oneloop);
    compare(&expected, &actual)
}

/// Runs `scenario` on CPython and on oneloop and compares; panics with a readable
/// report if they disagree.
/// `all` is the whole list `scenario` is in: the first check forks every scenario's
/// CPython run from one interpreter (see [`forked_traces`]).
pub fn check(scenario: &'static Scenario, all: &'static [Scenario]) {
    let version = python_version().unwrap_or_else(|problem| panic!("{problem}"));
    let forked = if runs_alone(scenario) {
        None
    } else {
        forked_traces(all).get(scenario.name).cloned()
    };
    let cpython = forked
        .map_or_else(|| run_script(scenario.name), Ok)
        .unwrap_or_else(|problem| panic!("{problem}"));
    let oneloop = oneloop_testkit::watchdog(ONELOOP_LIMIT, move || {
        let recorder = Recorder::new();
        (scenario.oneloop)(&recorder);
        recorder.lines()
    });
    if let Err(problem) = verdict(scenario, &cpython, &oneloop) {
        let applied = if scenario.differences.is_empty() {
            "none".to_string()
        } else {
            scenario
                .differences
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        panic!(
            "scenario `{name}` (tests/asyncio/{name}.py on {version}): oneloop and \
             CPython disagree.\nDifferences on purpose applied to CPython's trace: \
             {applied}.\n{problem}\nCPython's trace as printed, before those \
             differences:\n{raw}",
            name = scenario.name,
            raw = fold(cpython.iter().cloned())
                .iter()
                .map(|line| format!("  {line}\n"))
                .collect::<String>(),
        );
    }
}
