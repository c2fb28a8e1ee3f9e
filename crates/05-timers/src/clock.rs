//! Clocks: where the loop reads the time, and what "waiting" means.
//!
//! asyncio reads `time.monotonic()` through `loop.time()` and adds
//! `_clock_resolution` when it decides which timers are due. oneloop puts both behind
//! a trait so that a test can swap the real clock for a virtual one:
//!
//! - [`RealClock`] is monotonic (`Instant`), and blocking on it sleeps the thread.
//! - [`VirtualClock`] only moves when told to. When the loop would park with a
//!   timeout, it jumps to the deadline and the inner driver is polled with a zero
//!   timeout instead; [`block_for`](Clock::block_for) moves it forward, standing in for
//!   a blocking call on the loop's thread. Its resolution is 1 ns, not zero: a timer is
//!   due when `when < now + resolution`, so with a zero resolution a timer due exactly
//!   now would never be due.

use std::cell::Cell;
use std::fmt;
use std::thread;
use std::time::{Duration, Instant};

// ANCHOR: clock
/// The loop's time source: the time now, its resolution, and how time passes.
pub trait Clock: 'static {
    /// The time since the clock's start (asyncio's `loop.time()`).
    fn now(&self) -> Duration;

    /// The smallest step the clock can tell apart (asyncio's `_clock_resolution`).
    fn resolution(&self) -> Duration;

    /// Holds the loop's thread for `duration`, as a blocking call would: a real clock
    /// sleeps, a virtual one jumps forward.
    fn block_for(&self, duration: Duration);

    /// The timeout the inner driver gets when the loop would wait `timeout`. A real
    /// clock passes it on; a virtual clock jumps forward by it and answers zero.
    fn before_park(&self, timeout: Option<Duration>) -> Option<Duration> {
        timeout
    }

    /// Whether time here is simulated (nothing on another thread can wake the loop).
    fn is_virtual(&self) -> bool {
        false
    }
}
// ANCHOR_END: clock

/// The monotonic clock of the machine, counted from when it was made.
#[derive(Debug, Clone, Copy)]
pub struct RealClock {
    start: Instant,
}

impl RealClock {
    /// A clock whose time is zero now.
    pub fn new() -> Self {
        Self {
            start: Instant::now(),
        }
    }
}

impl Default for RealClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for RealClock {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn resolution(&self) -> Duration {
        // `Instant` on Linux is CLOCK_MONOTONIC, counted in nanoseconds (CPython's
        // `time.get_clock_info('monotonic').resolution` says 1e-09 there too).
        Duration::from_nanos(1)
    }

    fn block_for(&self, duration: Duration) {
        thread::sleep(duration);
    }
}

// ANCHOR: virtual_clock
/// A clock that moves only when the loop parks with a timeout or someone blocks.
#[derive(Default)]
pub struct VirtualClock {
    now: Cell<Duration>,
}

impl Clock for VirtualClock {
    fn now(&self) -> Duration {
        self.now.get()
    }

    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn block_for(&self, duration: Duration) {
        // Past the largest `Duration` the clock stops there instead of overflowing.
        self.now.set(self.now.get().saturating_add(duration));
    }

    fn before_park(&self, timeout: Option<Duration>) -> Option<Duration> {
        // Jump to the deadline, then let the inner driver look without waiting.
        let wait = timeout?;
        self.block_for(wait);
        Some(Duration::ZERO)
    }

    fn is_virtual(&self) -> bool {
        true
    }
}
// ANCHOR_END: virtual_clock

impl VirtualClock {
    /// A clock at time zero.
    pub fn new() -> Self {
        Self::default()
    }
}

impl fmt::Debug for VirtualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VirtualClock")
            .field("now", &self.now.get())
            .finish()
    }
}

/// A clock that counts how often it is read, around another clock: how a test or an
/// example shows that a turn reads the clock only when something needs the time.
#[derive(Debug, Default)]
pub struct CountingClock<C = RealClock> {
    inner: C,
    reads: Cell<usize>,
}

impl<C: Clock> CountingClock<C> {
    /// Counts the reads of `inner`, from zero.
    pub fn new(inner: C) -> Self {
        Self {
            inner,
            reads: Cell::new(0),
        }
    }

    /// How many times [`Clock::now`] was called so far.
    pub fn reads(&self) -> usize {
        self.reads.get()
    }
}

impl<C: Clock> Clock for CountingClock<C> {
    fn now(&self) -> Duration {
        self.reads.set(self.reads.get() + 1);
        self.inner.now()
    }

    fn resolution(&self) -> Duration {
        self.inner.resolution()
    }

    fn block_for(&self, duration: Duration) {
        self.inner.block_for(duration);
    }

    fn before_park(&self, timeout: Option<Duration>) -> Option<Duration> {
        self.inner.before_park(timeout)
    }

    fn is_virtual(&self) -> bool {
        self.inner.is_virtual()
    }
}
