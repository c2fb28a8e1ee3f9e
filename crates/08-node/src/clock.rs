//! The loop's clock: real milliseconds, or virtual ones that move only when the loop
//! would sleep.
//!
//! libuv keeps the loop's time in whole milliseconds and reads the OS clock only at a
//! few points (`uv__update_time`: when an iteration starts its timers, and when the poll
//! returns). Every timer started in between counts from that cached value. oneloop does
//! the same: [`Clock::now_ms`] is read by the loop at those points only.
//!
//! The virtual clock is for scenarios and tests: it starts at zero and moves only when
//! the poll phase would wait with a timeout and nothing is ready, jumping straight to
//! the deadline. A run on it gives the same order every time, whatever the machine.
//! It does not wait for I/O that is still in flight before it jumps: a timer on the
//! virtual clock fires as soon as the poll finds nothing ready, however long the real
//! event would take. Use it for programs whose order does not hang on such a race.

use std::cell::Cell;
use std::time::{Duration, Instant};

// ANCHOR: clock
/// Where the loop's milliseconds come from.
#[derive(Debug)]
pub enum Clock {
    /// The monotonic OS clock, counted from the loop's creation.
    Real {
        /// When the loop was made: millisecond zero.
        start: Instant,
    },
    /// A counter that moves only when the poll phase would sleep.
    Virtual {
        /// Milliseconds since the loop was made.
        now: Cell<u64>,
    },
}
// ANCHOR_END: clock

impl Clock {
    /// The real clock, starting now.
    pub fn real() -> Self {
        Clock::Real {
            start: Instant::now(),
        }
    }

    /// A virtual clock at millisecond zero.
    pub fn virtual_clock() -> Self {
        Clock::Virtual { now: Cell::new(0) }
    }

    /// Whether this is the virtual clock.
    pub fn is_virtual(&self) -> bool {
        matches!(self, Clock::Virtual { .. })
    }

    /// Milliseconds since the loop was made (whole milliseconds, rounded down, as
    /// libuv's `uv_now`).
    pub fn now_ms(&self) -> u64 {
        match self {
            Clock::Real { start } => u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            Clock::Virtual { now } => now.get(),
        }
    }

    /// Moves the virtual clock forward by `by` milliseconds (the loop "slept" that
    /// long). The real clock moves by itself, so this does nothing to it.
    pub fn advance(&self, by: u64) {
        if let Clock::Virtual { now } = self {
            now.set(now.get().saturating_add(by));
        }
    }

    /// How long a poll with a `ms` timeout may really block the thread: the full wait
    /// on the real clock, none at all on the virtual one (it jumps instead).
    pub(crate) fn real_wait(&self, ms: u64) -> Duration {
        match self {
            Clock::Real { .. } => Duration::from_millis(ms),
            Clock::Virtual { .. } => Duration::ZERO,
        }
    }
}
