//! The timer driver: the parking half of the timer layer, wrapped around any driver.
//!
//! One park of a [`TimerDriver`] is steps 1, 2 and 5 of asyncio's `_run_once` around
//! the inner driver's step 3 (and 4):
//!
//! 1. sweep cancelled timers;
//! 2. shorten the timeout the core asked for to the earliest deadline;
//! 3. park the inner driver (a virtual clock jumps to the deadline first, and the
//!    inner driver only looks, with a zero timeout), passing the ready queue down;
//! 5. move every timer due before `now + resolution` to the back of the ready queue.
//!
//! The inner driver pushes its I/O events during step 3, so they sit ahead of the due
//! timers in the queue: "I/O callbacks before timers" comes from the nesting.

use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::hooks::{LayerSnapshot, ReadyQueue, with_current};
use oneloop_core::{Core, Driver, EventLoop, ParkReport, ThreadParker};

use crate::debug::SlowCallbacks;
use crate::{Clock, RealClock, Timers, VirtualClock};

// ANCHOR: timer_driver
/// The timer layer's parking half, over an inner driver `D`.
pub struct TimerDriver<D: Driver = ThreadParker> {
    timers: Rc<Timers>,
    inner: D,
    /// Whether the slow-callback observer was added to the loop (once, lazily, the
    /// first time a turn parks with debug mode on).
    observing: bool,
}
// ANCHOR_END: timer_driver

/// A loop with a timer layer over the driver `D`.
pub type TimerLoop<D = ThreadParker> = EventLoop<TimerDriver<D>>;

impl<D: Driver> TimerDriver<D> {
    /// Timers on the real, monotonic clock, over `inner`.
    pub fn new(inner: D) -> Self {
        Self::with_clock(inner, Rc::new(RealClock::new()))
    }

    /// Timers on a fresh [`VirtualClock`] at time zero, over `inner`.
    pub fn virtual_time(inner: D) -> Self {
        Self::with_clock(inner, Rc::new(VirtualClock::new()))
    }

    /// Timers on `clock`, over `inner`.
    pub fn with_clock(inner: D, clock: Rc<dyn Clock>) -> Self {
        Self {
            timers: Rc::new(Timers::new(clock)),
            inner,
            observing: false,
        }
    }

    /// The shared half (the same `Rc` the loop's extensions hold).
    pub fn timers(&self) -> &Rc<Timers> {
        &self.timers
    }

    /// The inner driver.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The inner driver, mutably.
    pub fn inner_mut(&mut self) -> &mut D {
        &mut self.inner
    }

    /// Adds the slow-callback observer to the running loop, once, when debug mode is on.
    fn observe_if_debug(&mut self) {
        if self.observing || !self.timers.debug() {
            return;
        }
        let timers = Rc::downgrade(&self.timers);
        let added = with_current(|core| {
            core.add_observer(Rc::new(SlowCallbacks::new(timers, Rc::downgrade(core))));
        });
        self.observing = added.is_some();
    }
}

// ANCHOR: park
impl<D: Driver> Driver for TimerDriver<D> {
    fn install(&mut self, core: &Rc<Core>) {
        core.extensions().insert(Rc::clone(&self.timers));
        // At close, let go of every pending callback (one may hold the loop itself).
        let timers = Rc::downgrade(&self.timers);
        core.add_close_hook("timers", move || {
            if let Some(timers) = timers.upgrade() {
                timers.close();
            }
        });
        self.inner.install(core);
    }

    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        self.observe_if_debug();
        let Self { timers, inner, .. } = self;
        // No timer at all: nothing to sweep and no deadline to shorten the timeout to.
        let any_timer = timers.scheduled() > 0;
        let timeout = if any_timer {
            timers.sweep();
            timers.timeout(timeout)
        } else {
            timeout
        };
        let clock = timers.clock();
        // A park with a zero timeout does not sleep: it parks for no time, and the
        // clock is not read to measure it.
        let sleeps = timeout != Some(Duration::ZERO);
        let before = sleeps.then(|| clock.now());
        let inner_timeout = clock.before_park(timeout);
        let inner = inner.park(inner_timeout, ready);
        // Looked at again: the inner park calls wakers, which are user code and may
        // arm a timer (one due at once must move in this park, as any other does).
        let timers_moved = if timers.scheduled() > 0 {
            timers.move_due(ready)
        } else {
            0
        };
        let parked = before.map_or(Duration::ZERO, |before| clock.now().saturating_sub(before));
        ParkReport {
            timeout,
            parked,
            timers_moved,
            ..inner
        }
    }

    fn registrations(&self) -> usize {
        self.timers.live() + self.inner.registrations()
    }

    fn external_wakes(&self) -> bool {
        // In virtual time no other thread takes part: a held waker cannot end a park.
        !self.timers.clock().is_virtual() && self.inner.external_wakes()
    }

    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        out.push(LayerSnapshot {
            name: "timers",
            lines: self.timers.describe(8),
        });
        self.inner.describe(out);
    }
}
// ANCHOR_END: park

impl<D: Driver> fmt::Debug for TimerDriver<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerDriver")
            .field("timers", &self.timers)
            .finish_non_exhaustive()
    }
}

/// A loop with timers on the real clock over the default driver.
pub fn real_time_loop() -> TimerLoop {
    EventLoop::with_driver(TimerDriver::new(ThreadParker))
}

/// A loop with timers on a virtual clock (at zero) over the default driver.
pub fn virtual_time_loop() -> TimerLoop {
    EventLoop::with_driver(TimerDriver::virtual_time(ThreadParker))
}

/// Runs `future` on a fresh loop with real-clock timers, then closes the loop
/// (asyncio's `asyncio.run`, now with `sleep`).
pub fn run<F: std::future::Future + 'static>(
    future: F,
) -> Result<F::Output, oneloop_core::LoopError> {
    crate::run_with(|_| {}, future)
}
