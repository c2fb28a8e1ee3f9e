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
//!
//! A driver is installed once, when the loop is built: [`Driver::install`] receives the
//! loop's [`Core`], so a layer attaches itself there and then (its shared half in the
//! extensions, a close hook, an observer) and never has to look for its loop later.
//!
//! A driver that sleeps somewhere a thread unpark cannot reach (stage 6 sleeps in
//! `epoll_wait`) sets an [`Unparker`] on the loop's scheduler when it is installed:
//! a `Send + Sync` way for any thread to end its park early (see
//! [`OffThreadHooks`](crate::hooks::OffThreadHooks)); without one the loop's wakers
//! unpark the loop's thread.

use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use crate::{Core, ReadyQueue};

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
    /// How many times the driver asked the OS for events: one per `epoll_wait`
    /// (stage 6 fills it in; zero when a park could skip the call).
    pub polls: usize,
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
    /// Called once, when the loop is built, before any turn: attach this layer to
    /// `core` (its shared half in `core.extensions()`, its close hook, its observer).
    fn install(&mut self, core: &Rc<Core>) {
        let _ = core;
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
    /// (a waker held elsewhere unparks the thread, or calls the driver's
    /// [`Unparker`]). A driver of a simulated world, such as stage 5's virtual clock,
    /// answers `false`: then, with nothing ready and no registration, the loop reports
    /// a stall even while wakers are held.
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
    fn install(&mut self, core: &Rc<Core>) {
        (**self).install(core);
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

// ANCHOR: unpark
/// Ends a driver's park early. Called from any thread; the driver's next (or
/// current) park returns as soon as it can.
///
/// The wake must not be lost: if it comes before the park begins, that park must
/// return at once (a thread's unpark token and an eventfd both keep it).
pub trait Unpark: Send + Sync + 'static {
    /// Wakes the parked driver, or makes its next park return at once.
    fn unpark(&self);
}

impl Unpark for Thread {
    fn unpark(&self) {
        Thread::unpark(self);
    }
}

/// A shareable [`Unpark`]: what a driver sets on the loop's scheduler when a thread
/// unpark cannot end its sleep.
#[derive(Clone)]
pub struct Unparker(Arc<dyn Unpark>);

impl Unparker {
    /// Wraps `unpark`.
    pub fn new(unpark: impl Unpark) -> Self {
        Self(Arc::new(unpark))
    }

    /// Ends the driver's park early (see [`Unpark`]).
    pub fn unpark(&self) {
        self.0.unpark();
    }
}

impl fmt::Debug for Unparker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Unparker")
    }
}
// ANCHOR_END: unpark

// ANCHOR: thread_parker
/// The default driver: no timers, no I/O. It parks the thread when asked to wait.
///
/// Nothing on the loop's own thread can unpark it while it sleeps, so the loop only
/// lets it wait for ever when some waker is held elsewhere (another thread may call
/// it). A wake from another thread unparks it; unless a layer took over such wakes
/// (stage 7's injection queue), the loop then reports that they need stage 7.
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
