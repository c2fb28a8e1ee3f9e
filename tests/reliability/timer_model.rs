//! The timer layer against a small model of asyncio's rules, in random sequences.
//!
//! Each case builds a loop on a virtual clock and applies a random sequence of
//! operations through the timer layer's public API: schedule (`call_later`, `call_at`,
//! bursts of many timers, some callbacks cancelling another timer when they run),
//! cancel, hold the loop's thread (`block_for`), and run one turn (`run_once`). After
//! every operation it compares the loop with the model: the callbacks that ran and their
//! order, the heap's length and cancelled count, and the clock.
//!
//! The model's rules, from CPython 3.11's `BaseEventLoop._run_once` (print it with
//! `python3 -c 'import inspect, asyncio;
//! print(inspect.getsource(asyncio.base_events.BaseEventLoop._run_once))'`):
//!
//! - **sweep**, at the start of each turn: when more than 100 timers are in the heap and
//!   more than half of them are cancelled (both strict), the heap is rebuilt without
//!   the cancelled ones and the count reset; otherwise cancelled timers are popped from
//!   the head only;
//! - **timeout**: with nothing ready, the turn sleeps until the earliest deadline (at
//!   most a day); the virtual clock jumps there; with no live timer at all, the loop
//!   reports `Stalled` instead of sleeping for ever;
//! - **due**: every timer with `deadline < now + resolution` (1 ns here) moves to the
//!   ready queue, earliest deadline first, ties in scheduling order;
//! - **cancel**: a cancelled timer never runs, even when it was already moved to the
//!   ready queue; a cancel is counted only while the timer is still in the heap.
//!
//! - **count**: the due loop pops cancelled timers that sit behind a live head without
//!   uncounting them (only the sweep's pops lower the count), so `_timer_cancelled_count`
//!   can stay above the number of cancelled timers left in the heap, above zero with an
//!   empty heap, until a rebuild resets it. oneloop keeps that quirk; the seeded check
//!   below shows the property tells it from an exact count.
//!
//! The seeded failure check runs the same property against deliberately wrong models
//! (ties in reverse scheduling order, a sweep at 40 % instead of more than half, an
//! exact count) and asserts it finds a counterexample for each, so a property that
//! could not fail would be caught.
//!
//! The runs are deterministic: a fixed seed, no failure files.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{EventLoop, LoopError, ThreadParker};
use oneloop_timers::{
    LoopTimers, MAXIMUM_SELECT_TIMEOUT, MIN_CANCELLED_TIMER_HANDLES_FRACTION,
    MIN_SCHEDULED_TIMER_HANDLES, TimerDriver, TimerHandle,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// One operation of a case. Times are in milliseconds.
#[derive(Debug, Clone)]
enum Op {
    /// `call_later(delay)`; when it runs, the callback cancels timer `cancels % n`.
    CallLater { delay: u64, cancels: Option<usize> },
    /// `call_at(at)`, which may be in the past.
    CallAt { at: u64, cancels: Option<usize> },
    /// `count` timers at `delay`, `delay + spacing`, ... (enough to pass 100).
    Burst {
        count: usize,
        delay: u64,
        spacing: u64,
    },
    /// Cancels timer `index % n`.
    Cancel(usize),
    /// Cancels every `step`-th timer from `start % n` on.
    CancelEvery { start: usize, step: usize },
    /// Holds the loop's thread (`block_for`): the clock moves, no turn runs.
    Block(u64),
    /// One turn of the loop (`run_once`).
    Turn,
}

/// An operation from three small numbers: cheap to generate, and shrinking the numbers
/// towards zero shrinks the operation (towards `call_later(0)`).
fn decode((kind, a, b): (u8, u16, u16)) -> Op {
    let (a, b) = (u64::from(a), usize::from(b));
    // One in five scheduled callbacks cancels another timer when it runs.
    let cancels = (b % 5 == 4).then_some(b / 5);
    match kind {
        0..=3 => Op::CallLater {
            delay: a % 21,
            cancels,
        },
        4..=5 => Op::CallAt {
            at: a % 41,
            cancels,
        },
        6..=7 => Op::Burst {
            count: 1 + b % 70,
            delay: a % 21,
            spacing: a / 21 % 3,
        },
        8..=10 => Op::Cancel(b),
        11..=12 => Op::CancelEvery {
            start: b,
            step: 1 + a as usize % 4,
        },
        13 => Op::Block(a % 16),
        _ => Op::Turn,
    }
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec((0u8..18, 0u16..1000, 0u16..1000).prop_map(decode), 1..40)
}

/// Which rules the model follows: asyncio's (as oneloop keeps them), or a wrong one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// The rules of the module doc.
    Asyncio,
    /// Wrong: timers with equal deadlines run newest first.
    LifoTies,
    /// Wrong: the heap is rebuilt once more than 40 % of it is cancelled.
    SweepAt40,
    /// Wrong: cancelled timers popped by the due loop are uncounted (exact, but not
    /// CPython's count).
    ExactCount,
}

/// Where a timer is, in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In the heap, live.
    Heap,
    /// In the heap, cancelled (counted).
    CancelledInHeap,
    /// Moved to the ready queue this turn, not yet run.
    Ready,
    /// Cancelled and out of the heap: it will never run.
    Gone,
    /// It ran.
    Ran,
}

#[derive(Debug)]
struct Timer {
    cancels: Option<usize>,
    state: State,
}

/// The model: a clock in nanoseconds, the timers, the heap's keys, the count.
#[derive(Debug)]
struct Model {
    rule: Rule,
    now: u64,
    timers: Vec<Timer>,
    /// `(deadline, tie-break, id)`: the first entry is the heap's head.
    heap: BTreeSet<(u64, u64, usize)>,
    cancelled: usize,
    ran: Vec<usize>,
}

const MS: u64 = 1_000_000;

impl Model {
    fn new(rule: Rule) -> Self {
        Self {
            rule,
            now: 0,
            timers: Vec::new(),
            heap: BTreeSet::new(),
            cancelled: 0,
            ran: Vec::new(),
        }
    }

    fn schedule(&mut self, when: u64, cancels: Option<usize>) {
        let id = self.timers.len();
        let tie = match self.rule {
            Rule::LifoTies => u64::MAX - id as u64,
            _ => id as u64,
        };
        self.timers.push(Timer {
            cancels,
            state: State::Heap,
        });
        self.heap.insert((when, tie, id));
    }

    fn cancel(&mut self, id: usize) {
        let timer = &mut self.timers[id];
        match timer.state {
            State::Heap => {
                timer.state = State::CancelledInHeap;
                self.cancelled += 1;
            }
            State::Ready => timer.state = State::Gone,
            State::CancelledInHeap | State::Gone | State::Ran => {}
        }
    }

    fn live(&self) -> usize {
        self.heap.len() - self.real_cancelled_in_heap()
    }

    fn real_cancelled_in_heap(&self) -> usize {
        self.heap
            .iter()
            .filter(|(_, _, id)| self.timers[*id].state == State::CancelledInHeap)
            .count()
    }

    /// One turn; `Err(Stalled)` when nothing could ever run.
    fn turn(&mut self) -> Result<(), LoopError> {
        if self.live() == 0 {
            return Err(LoopError::Stalled);
        }
        // Step 1: the sweep.
        let len = self.heap.len();
        let fraction = match self.rule {
            Rule::SweepAt40 => 0.4,
            _ => MIN_CANCELLED_TIMER_HANDLES_FRACTION,
        };
        if len > MIN_SCHEDULED_TIMER_HANDLES && self.cancelled as f64 / len as f64 > fraction {
            let timers = &mut self.timers;
            self.heap.retain(|(_, _, id)| {
                let keep = timers[*id].state != State::CancelledInHeap;
                if !keep {
                    timers[*id].state = State::Gone;
                }
                keep
            });
            self.cancelled = 0;
        } else {
            while let Some(&head) = self.heap.first() {
                if self.timers[head.2].state != State::CancelledInHeap {
                    break;
                }
                self.heap.remove(&head);
                self.timers[head.2].state = State::Gone;
                self.cancelled = self.cancelled.saturating_sub(1);
            }
        }
        // Step 2: nothing is ready, so sleep until the head's deadline (at most a day).
        if let Some(&(when, _, _)) = self.heap.first() {
            let limit = MAXIMUM_SELECT_TIMEOUT.as_nanos() as u64;
            self.now += when.saturating_sub(self.now).min(limit);
        }
        // Step 5: due timers to the ready queue, in heap order.
        let end = self.now + 1;
        let mut batch = Vec::new();
        while let Some(&head) = self.heap.first() {
            if head.0 >= end {
                break;
            }
            self.heap.remove(&head);
            let timer = &mut self.timers[head.2];
            if timer.state == State::CancelledInHeap {
                timer.state = State::Gone;
                if self.rule == Rule::ExactCount {
                    self.cancelled -= 1;
                }
            } else {
                timer.state = State::Ready;
                batch.push(head.2);
            }
        }
        // Step 6: run the batch; a timer cancelled meanwhile is skipped.
        for id in batch {
            if self.timers[id].state != State::Ready {
                continue;
            }
            self.timers[id].state = State::Ran;
            self.ran.push(id);
            if let Some(k) = self.timers[id].cancels {
                let target = k % self.timers.len();
                self.cancel(target);
            }
        }
        Ok(())
    }
}

/// The real side: a loop on a virtual clock, the handles, the log of callbacks run.
struct Real {
    event_loop: EventLoop<TimerDriver<ThreadParker>>,
    handles: Rc<RefCell<Vec<TimerHandle>>>,
    ran: Rc<RefCell<Vec<usize>>>,
}

impl Real {
    fn new() -> Self {
        Self {
            event_loop: EventLoop::with_driver(TimerDriver::virtual_time(ThreadParker)),
            handles: Rc::new(RefCell::new(Vec::new())),
            ran: Rc::new(RefCell::new(Vec::new())),
        }
    }

    fn callback(&self, cancels: Option<usize>) -> impl FnOnce() + 'static {
        let id = self.handles.borrow().len();
        let (handles, ran) = (Rc::clone(&self.handles), Rc::clone(&self.ran));
        move || {
            ran.borrow_mut().push(id);
            if let Some(k) = cancels {
                let target = handles.borrow()[k % handles.borrow().len()].clone();
                target.cancel();
            }
        }
    }

    fn call_later(&self, delay: u64, cancels: Option<usize>) {
        let callback = self.callback(cancels);
        let timers = self.event_loop.core().timers();
        let handle = timers.call_later(Duration::from_millis(delay), callback);
        self.handles.borrow_mut().push(handle);
    }

    fn call_at(&self, at: u64, cancels: Option<usize>) {
        let callback = self.callback(cancels);
        let timers = self.event_loop.core().timers();
        let handle = timers.call_at(Duration::from_millis(at), callback);
        self.handles.borrow_mut().push(handle);
    }

    fn cancel(&self, id: usize) {
        let handle = self.handles.borrow()[id].clone();
        handle.cancel();
    }
}

/// Applies `ops` to a real loop and to the model of `rule`, comparing after each.
fn run_case(rule: Rule, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut real = Real::new();
    let mut model = Model::new(rule);
    for (step, op) in ops.iter().enumerate() {
        let mut turn = (Ok(()), Ok(()));
        match *op {
            Op::CallLater { delay, cancels } => {
                real.call_later(delay, cancels);
                model.schedule(model.now + delay * MS, cancels);
            }
            Op::CallAt { at, cancels } => {
                real.call_at(at, cancels);
                model.schedule(at * MS, cancels);
            }
            Op::Burst {
                count,
                delay,
                spacing,
            } => {
                for n in 0..count as u64 {
                    real.call_later(delay + n * spacing, None);
                    model.schedule(model.now + (delay + n * spacing) * MS, None);
                }
            }
            Op::Cancel(index) => {
                let n = model.timers.len();
                if n > 0 {
                    real.cancel(index % n);
                    model.cancel(index % n);
                }
            }
            Op::CancelEvery { start, step } => {
                let n = model.timers.len();
                if n > 0 {
                    for id in (start % n..n).step_by(step) {
                        real.cancel(id);
                        model.cancel(id);
                    }
                }
            }
            Op::Block(ms) => {
                real.event_loop
                    .core()
                    .timers()
                    .block_for(Duration::from_millis(ms));
                model.now += ms * MS;
            }
            Op::Turn => turn = (real.event_loop.run_once(), model.turn()),
        }
        let timers = real.event_loop.core().timers();
        let at = || format!("after step {step} ({op:?})");
        prop_assert_eq!(&turn.0, &turn.1, "the turn's outcome, {}", at());
        prop_assert_eq!(&*real.ran.borrow(), &model.ran, "callbacks run, {}", at());
        prop_assert_eq!(
            timers.scheduled(),
            model.heap.len(),
            "heap length, {}",
            at()
        );
        prop_assert_eq!(
            timers.cancelled(),
            model.cancelled,
            "cancelled count, {}",
            at()
        );
        prop_assert_eq!(
            timers.time(),
            Duration::from_nanos(model.now),
            "the clock, {}",
            at()
        );
    }
    Ok(())
}

/// Runs the property for `cases` cases with a fixed seed and no failure files.
fn check(rule: Rule, cases: u32) -> Result<(), TestError<Vec<Op>>> {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    runner.run(&ops(), |ops| run_case(rule, &ops))
}

#[test]
fn the_timer_layer_follows_asyncios_rules_in_ten_thousand_random_cases() {
    if let Err(error) = check(Rule::Asyncio, 10_000) {
        panic!("the timer layer departs from the model: {error}");
    }
}

#[test]
fn the_property_finds_a_counterexample_to_each_wrong_rule() {
    for rule in [Rule::LifoTies, Rule::SweepAt40, Rule::ExactCount] {
        match check(rule, 10_000) {
            Err(TestError::Fail(_, ops)) => {
                assert!(!ops.is_empty(), "{rule:?}: an empty counterexample");
            }
            Err(TestError::Abort(why)) => panic!("{rule:?}: the run aborted: {why}"),
            Ok(()) => panic!("{rule:?}: 10,000 cases found no difference from a wrong rule"),
        }
    }
}
