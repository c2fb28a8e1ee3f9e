//! What the examples measure: turns and their lengths on the loop's (real) clock.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{Observer, ParkReport};
use oneloop_timers::{LoopTimers, TimerLoop, Timers, real_time_loop};

/// Counts turns and keeps the longest, timed on the loop's clock.
pub struct Measure {
    timers: Rc<Timers>,
    started: Cell<Duration>,
    turns: Cell<u64>,
    longest: Cell<Duration>,
}

impl Observer for Measure {
    fn turn_started(&self, _turn: u64) {
        self.started.set(self.timers.time());
        self.turns.set(self.turns.get() + 1);
    }

    fn turn_ended(&self, _turn: u64, _park: &ParkReport, _handles: usize) {
        let length = self.timers.time() - self.started.get();
        self.longest.set(self.longest.get().max(length));
    }
}

impl Measure {
    /// Turns run so far.
    pub fn turns(&self) -> u64 {
        self.turns.get()
    }

    /// The longest turn so far.
    pub fn longest(&self) -> Duration {
        self.longest.get()
    }
}

/// A real-clock loop with a measure on it.
pub fn measured_loop() -> (TimerLoop, Rc<Measure>) {
    let event_loop = real_time_loop();
    let measure = Rc::new(Measure {
        timers: event_loop.timers(),
        started: Cell::new(Duration::ZERO),
        turns: Cell::new(0),
        longest: Cell::new(Duration::ZERO),
    });
    event_loop.add_observer(Rc::clone(&measure) as Rc<dyn Observer>);
    (event_loop, measure)
}

/// Milliseconds with one decimal.
pub fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// The median of the gaps between consecutive ticks.
pub fn median_interval(ticks: &[Duration]) -> Option<Duration> {
    let mut gaps: Vec<Duration> = ticks.windows(2).map(|pair| pair[1] - pair[0]).collect();
    gaps.sort();
    gaps.get(gaps.len().checked_sub(1)? / 2).copied()
}

/// A shared list of tick times.
pub fn ticks() -> Rc<RefCell<Vec<Duration>>> {
    Rc::new(RefCell::new(Vec::new()))
}

/// Prints the lines every ticking example ends with: the median gap between ticks,
/// the total time, and the turns with the longest of them.
pub fn report(ticks: &[Duration], total: Duration, measure: &Measure) {
    if let Some(median) = median_interval(ticks) {
        println!("  median interval: {}", ms(median));
    }
    println!("  total:           {}", ms(total));
    println!("  turns:           {}", measure.turns());
    println!("  longest turn:    {}", ms(measure.longest()));
}

/// Tick times, in ms, on one line.
pub fn list(ticks: &[Duration]) -> String {
    let parts: Vec<String> = ticks
        .iter()
        .map(|tick| format!("{:.1}", tick.as_secs_f64() * 1000.0))
        .collect();
    format!("[{}] ms", parts.join(", "))
}
