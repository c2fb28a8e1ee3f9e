//! Instruments shared by the stage 5 tests: a turn log timed on the loop's clock and a
//! recorder of the loop's reports.
#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ex05_timers::{LoopTimers, TimerLoop, Timers, virtual_time_loop};
use oneloop_core::{ExceptionReport, Label, Observer, ParkReport};

/// Milliseconds as a `Duration`.
pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// One turn as the loop's clock saw it.
#[derive(Debug, Clone, Default)]
pub struct TurnRecord {
    /// The turn's number (from 1).
    pub turn: u64,
    /// The clock when the turn began and ended.
    pub start: Duration,
    /// The clock when the turn ended.
    pub end: Duration,
    /// The labels of the handles run, in order.
    pub labels: Vec<String>,
    /// What the park did.
    pub park: ParkReport,
}

impl TurnRecord {
    /// How long the turn lasted on the loop's clock.
    pub fn length(&self) -> Duration {
        self.end - self.start
    }
}

/// Records every turn, timed on the loop's clock.
pub struct TurnLog {
    timers: Rc<Timers>,
    turns: RefCell<Vec<TurnRecord>>,
}

impl TurnLog {
    /// Adds a turn log to `event_loop`.
    pub fn on<D: oneloop_core::Driver>(event_loop: &TimerLoop<D>) -> Rc<Self> {
        let log = Rc::new(Self {
            timers: event_loop.timers(),
            turns: RefCell::new(Vec::new()),
        });
        event_loop.add_observer(Rc::clone(&log) as Rc<dyn Observer>);
        log
    }

    /// Every turn so far.
    pub fn turns(&self) -> Vec<TurnRecord> {
        self.turns.borrow().clone()
    }

    /// The labels run in turn `n` (from 1).
    pub fn labels(&self, n: u64) -> Vec<String> {
        self.turns.borrow()[(n - 1) as usize].labels.clone()
    }

    /// The longest turn on the loop's clock.
    pub fn longest(&self) -> Duration {
        self.turns
            .borrow()
            .iter()
            .map(TurnRecord::length)
            .max()
            .unwrap_or_default()
    }
}

impl Observer for TurnLog {
    fn turn_started(&self, turn: u64) {
        self.turns.borrow_mut().push(TurnRecord {
            turn,
            start: self.timers.time(),
            ..TurnRecord::default()
        });
    }

    fn handle_ran(&self, _turn: u64, label: &Label, _elapsed: Duration) {
        if let Some(last) = self.turns.borrow_mut().last_mut() {
            last.labels.push(label.to_string());
        }
    }

    fn turn_ended(&self, _turn: u64, park: &ParkReport, _handles: usize) {
        let now = self.timers.time();
        if let Some(last) = self.turns.borrow_mut().last_mut() {
            last.end = now;
            last.park = *park;
        }
    }
}

/// Replaces the loop's exception handler with one that records the reports.
pub fn record_reports<D: oneloop_core::Driver>(
    event_loop: &TimerLoop<D>,
) -> Rc<RefCell<Vec<ExceptionReport>>> {
    let reports = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&reports);
    event_loop.set_exception_handler(move |report| sink.borrow_mut().push(report.clone()));
    reports
}

/// A virtual-time loop with a turn log.
pub fn logged_virtual_loop() -> (TimerLoop, Rc<TurnLog>) {
    let event_loop = virtual_time_loop();
    let log = TurnLog::on(&event_loop);
    (event_loop, log)
}

/// A shared list of values, for recording orders.
pub fn shared<T>() -> Rc<RefCell<Vec<T>>> {
    Rc::new(RefCell::new(Vec::new()))
}
