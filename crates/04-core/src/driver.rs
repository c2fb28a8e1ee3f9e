//! Drivers: how the loop waits between turns.
//!
//! asyncio's `_run_once` sleeps in exactly one place, `selector.select(timeout)`, and
//! then turns what happened (ready file descriptors, due timers) into handles on
//! `_ready`. oneloop makes that place a trait. The core computes the timeout and calls
//! [`Driver::park`]; the driver sleeps at most that long and pushes what became ready.
//!
//! Layers stack by wrapping: stage 5's timer driver will own an inner driver, shorten
//! the timeout to its earliest deadline, park the inner one (passing the same
//! `&ReadyQueue` down), and then push the timers that came due. Stage 6's I/O driver is
//! the innermost and pushes ready events. The core never learns which layers exist.
//!
//! The driver of this stage, [`ThreadParker`], has nothing to wait for: it parks the
//! thread, which only another thread can unpark.

use std::thread;
use std::time::{Duration, Instant};

use crate::{Extensions, ReadyQueue};

// ANCHOR: park_report
/// What one park did, for observers and for the layers wrapping a driver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParkReport {
    /// The timeout the loop asked for (`None`: wait until something happens).
    pub timeout: Option<Duration>,
    /// How long the thread actually slept.
    pub parked: Duration,
    /// I/O events turned into handles (stage 6 fills it in).
    pub io_events: usize,
    /// Timers moved to the ready queue (stage 5 fills it in).
    pub timers_moved: usize,
}
// ANCHOR_END: park_report

/// One layer's view for a stepper: a name and some lines of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerSnapshot {
    /// The layer's name ("timers", "io", ...).
    pub name: &'static str,
    /// What the layer holds, one item per line.
    pub lines: Vec<String>,
}

// ANCHOR: driver
/// The parking half of the loop: sleep at most `timeout`, then queue what is ready.
pub trait Driver: 'static {
    /// Called once, when the loop is built: put this layer's shared half in `ext`.
    fn install(&mut self, ext: &Extensions) {
        let _ = ext;
    }

    /// Sleeps at most `timeout` (`None`: until something happens; zero: not at all),
    /// then pushes the handles that became ready onto `ready`.
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport;

    /// How many registrations (timers, file descriptors, jobs in flight) could still
    /// push a handle. Zero lets the loop tell a stall from a wait: with nothing ready,
    /// no registration and no waker held anywhere, parking would last for ever.
    fn registrations(&self) -> usize {
        0
    }

    /// Whether something outside the loop's thread may end a park with no timeout
    /// (a waker held elsewhere unparks the thread). A driver of a simulated world,
    /// such as stage 5's virtual clock, answers `false`: then, with nothing ready and
    /// no registration, the loop reports a stall even while wakers are held.
    fn external_wakes(&self) -> bool {
        true
    }

    /// Adds this layer's snapshot (and its inner driver's) for a stepper.
    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        let _ = out;
    }
}
// ANCHOR_END: driver

impl Driver for Box<dyn Driver> {
    fn install(&mut self, ext: &Extensions) {
        (**self).install(ext);
    }
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        (**self).park(timeout, ready)
    }
    fn registrations(&self) -> usize {
        (**self).registrations()
    }
    fn external_wakes(&self) -> bool {
        (**self).external_wakes()
    }
    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        (**self).describe(out);
    }
}

// ANCHOR: thread_parker
/// The default driver: no timers, no I/O. It parks the thread when asked to wait.
///
/// Nothing on the loop's own thread can unpark it while it sleeps, so the loop only
/// lets it wait for ever when some waker is held elsewhere (another thread may call
/// it). A wake from another thread unparks it; the loop then reports that such wakes
/// need stage 7.
#[derive(Debug, Default)]
pub struct ThreadParker;

impl Driver for ThreadParker {
    fn park(&mut self, timeout: Option<Duration>, _ready: &ReadyQueue) -> ParkReport {
        let parked = match timeout {
            Some(Duration::ZERO) => Duration::ZERO,
            Some(limit) => {
                let start = Instant::now();
                thread::park_timeout(limit);
                start.elapsed()
            }
            None => {
                let start = Instant::now();
                thread::park();
                start.elapsed()
            }
        };
        ParkReport {
            timeout,
            parked,
            ..ParkReport::default()
        }
    }
}
// ANCHOR_END: thread_parker
