//! One run of stage 8's Node-style loop, turned into a trace of phases.
//!
//! The Node-style loop has no observer hook: nothing tells an outsider when a phase
//! begins or a callback runs. What it does give is public: [`current_phase`] and
//! [`iteration`] answer from inside any callback, and [`console_log`] lines come back
//! in the run's report. So every callback of the program below logs where it ran, and
//! the trace is rebuilt from the log: a column for the main script and one for the
//! timers run before the first iteration, then one column per phase of every
//! iteration (empty ones too, drawn narrow), callbacks in one lane, nextTicks and
//! microtasks in two others. Durations are not known, so the figure draws order only.

use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use oneloop_node::{
    Interest, NodeLoop, Phase, Promise, close, console_log, current_phase, iteration, next_tick,
    once_ready, pipe, queue_microtask, queue_pending, set_immediate, set_timeout,
};

use crate::{Lane, Span, TimeBase, Trace, Turn};

/// The phases of one iteration, in the order libuv 1.45 and later run them (Node 20
/// ships such a libuv), with the names columns show: the timers phase ends an
/// iteration. The timers also run once before the first iteration, a column of its
/// own beside the main script.
pub const PHASES: [(Phase, &str); 6] = [
    (Phase::Pending, "pending"),
    (Phase::IdlePrepare, "idle"),
    (Phase::Poll, "poll"),
    (Phase::Check, "check"),
    (Phase::Close, "close"),
    (Phase::Timers, "timers"),
];

/// A Node run as a trace, with the columns grouped by iteration.
#[derive(Debug, Clone)]
pub struct NodeRun {
    /// One turn per phase (the first is the main script).
    pub trace: Trace,
    /// `(first column, last column, "iteration N")` for each group.
    pub groups: Vec<(usize, usize, String)>,
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Main => "main",
        other => PHASES
            .iter()
            .find(|(known, _)| *known == other)
            .map_or("?", |(_, name)| name),
    }
}

/// Logs `label` in `lane`, with the phase and iteration it runs in.
fn log(lane: &str, label: &str) {
    console_log(format!(
        "{}|{}|{lane}|{label}",
        iteration(),
        phase_name(current_phase())
    ));
}

// ANCHOR: node_program
/// The main script: one callback of each kind.
fn program() {
    log("callbacks", "main script");
    set_timeout(|| log("callbacks", "setTimeout 0"), 0);
    set_immediate(|| log("callbacks", "setImmediate"));
    queue_pending(|| log("callbacks", "pending callback"));
    Promise::resolved(()).then(|()| log("microtasks", "promise"));
    next_tick(|| log("nextTick", "nextTick"));
    // A pipe with a byte in it: a real readiness event in the poll phase.
    let (mut sender, receiver) = pipe::new().expect("a pipe can be made");
    sender
        .write_all(b"x")
        .expect("one byte fits in an empty pipe");
    let id = Rc::new(Cell::new(None));
    let own_id = Rc::clone(&id);
    let watched = once_ready(receiver, Interest::READABLE, move |_receiver| {
        drop(sender);
        log("callbacks", "pipe readable");
        next_tick(|| log("nextTick", "nextTick"));
        queue_microtask(|| log("microtasks", "microtask"));
        if let Some(id) = own_id.get() {
            close(id, || log("callbacks", "close callback")).expect("the watch is known");
        }
    })
    .expect("the pipe can be registered");
    id.set(Some(watched));
}
// ANCHOR_END: node_program

/// Runs the program on a virtual clock and rebuilds its phases from the log.
pub fn node_iteration() -> Result<NodeRun, String> {
    let mut node = NodeLoop::with_virtual_clock().map_err(|e| e.to_string())?;
    let report = node.run(program).map_err(|e| e.to_string())?;
    let mut logged = Vec::new();
    for line in &report.output {
        let parts: Vec<&str> = line.splitn(4, '|').collect();
        let [number, phase, lane, label] = parts[..] else {
            return Err(format!("a log line of an unknown shape: {line}"));
        };
        let number: u64 = number
            .parse()
            .map_err(|_| format!("a log line with no iteration: {line}"))?;
        logged.push((number, phase, lane, label));
    }
    phases_of(report.iterations, &logged)
}

/// Runs one of chapter 8's quiz programs on a virtual clock. Its lines are its own;
/// where each was logged comes from the run's report, so each line is placed in the
/// phase that printed it (all in the callbacks lane).
fn quiz(program: fn()) -> Result<NodeRun, String> {
    let mut node = NodeLoop::with_virtual_clock().map_err(|e| e.to_string())?;
    let report = node.run(program).map_err(|e| e.to_string())?;
    let logged: Vec<(u64, &str, &str, &str)> = report
        .output
        .iter()
        .zip(&report.logged_in)
        .map(|(line, (number, phase))| (*number, phase_name(*phase), "callbacks", line.as_str()))
        .collect();
    phases_of(report.iterations, &logged)
}

/// Chapter 8's first quiz (the phases), recorded.
pub fn phases_quiz() -> Result<NodeRun, String> {
    quiz(oneloop_node::phases_quiz)
}

/// Chapter 8's second quiz (promises and async functions), recorded.
pub fn async_quiz() -> Result<NodeRun, String> {
    quiz(oneloop_node::async_quiz)
}

/// The columns of a run of `iterations` iterations, each logged line placed in its
/// phase: `(iteration, phase, lane, label)`.
fn phases_of(iterations: u64, logged: &[(u64, &str, &str, &str)]) -> Result<NodeRun, String> {
    // Iteration 0: the main script, then the timers run before the first iteration.
    let mut columns: Vec<(u64, &str)> = vec![(0, "main"), (0, "timers")];
    for number in 1..=iterations {
        columns.extend(PHASES.iter().map(|(_, name)| (number, *name)));
    }
    let mut turns: Vec<Turn> = columns
        .iter()
        .enumerate()
        .map(|(index, (_, title))| Turn {
            number: index as u64 + 1,
            title: (*title).to_string(),
            start: Duration::ZERO,
            timeout: Some(Duration::ZERO),
            parked: Duration::ZERO,
            io_events: 0,
            timers_moved: 0,
            handles: Vec::new(),
            end: Duration::ZERO,
        })
        .collect();
    for &(number, phase, lane, label) in logged {
        let column = columns
            .iter()
            .position(|(n, name)| *n == number && *name == phase)
            .ok_or_else(|| format!("a callback in no known phase: {number}|{phase}|{label}"))?;
        let (lane, kind) = match lane {
            "callbacks" => (Lane::Callbacks, "callback"),
            "nextTick" => (Lane::Named("nextTick".to_string()), "nextTick"),
            _ => (Lane::Named("microtasks".to_string()), "microtask"),
        };
        turns[column].handles.push(Span {
            label: label.to_string(),
            lane,
            kind,
            start: Duration::ZERO,
            end: Duration::ZERO,
        });
    }
    let mut groups = vec![(0, 1, "before iteration 1".to_string())];
    for number in 1..=iterations {
        let first = 2 + (number as usize - 1) * PHASES.len();
        groups.push((
            first,
            first + PHASES.len() - 1,
            format!("iteration {number}"),
        ));
    }
    let mut trace = Trace::new(TimeBase::Virtual);
    trace.turns = turns;
    Ok(NodeRun { trace, groups })
}
