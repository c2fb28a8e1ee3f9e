//! Stage 5 exercises: timers.
//!
//! This crate is the reference crate `oneloop-timers` with four mechanisms cut out. The
//! files you edit are:
//!
//! - `src/order.rs` — exercise 1: the heap's order, ties in scheduling order (chapter 5.1);
//! - `src/select_timeout.rs` — exercise 2: the select timeout (chapter 5.2);
//! - `src/sweep.rs` — exercise 3: the sweep of cancelled timers (chapter 5.3);
//! - `src/sleep_poll.rs` — exercise 4: polling a `sleep` (chapter 5.4).
//!
//! Every other module comes from `crates/05-timers/src`, unchanged. Do not edit this
//! file. Test your work with `cargo course test 5`, or `cargo test -p ex05-timers`.
#![forbid(unsafe_code)]
// Under the challenge, what only the challenge file calls looks unused until it is written.
#![cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    allow(dead_code, unused_imports)
)]
// The helpers that only the holes call look unused until the holes are written.
#![cfg_attr(not(feature = "solution"), allow(dead_code))]

#[path = "../../../crates/05-timers/src/clock.rs"]
mod clock;
#[path = "../../../crates/05-timers/src/debug.rs"]
mod debug;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/05-timers/src/driver.rs"]
mod driver;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/driver.rs"
)]
mod driver;
#[path = "../../../crates/05-timers/src/entry.rs"]
mod entry;
#[path = "../../../crates/05-timers/src/heap.rs"]
mod heap;
#[path = "../../../crates/05-timers/src/sleep.rs"]
mod sleep;
#[path = "../../../crates/05-timers/src/timeout.rs"]
mod timeout;
#[path = "../../../crates/05-timers/src/timers.rs"]
mod timers;

#[cfg(not(feature = "solution"))]
mod order;
#[cfg(feature = "solution")]
#[path = "../../../crates/05-timers/src/order.rs"]
mod order;
#[path = "../../../crates/05-timers/src/prelude.rs"]
pub mod prelude;
#[path = "../../../crates/05-timers/src/run_with.rs"]
mod run_with;

#[cfg(not(feature = "solution"))]
mod select_timeout;
#[cfg(feature = "solution")]
#[path = "../../../crates/05-timers/src/select_timeout.rs"]
mod select_timeout;

#[cfg(not(feature = "solution"))]
mod sweep;
#[cfg(feature = "solution")]
#[path = "../../../crates/05-timers/src/sweep.rs"]
mod sweep;

#[cfg(not(feature = "solution"))]
mod sleep_poll;
#[cfg(feature = "solution")]
#[path = "../../../crates/05-timers/src/sleep_poll.rs"]
mod sleep_poll;

pub use clock::{Clock, CountingClock, RealClock, VirtualClock};
pub use debug::{DEBUG_ENV, DEFAULT_SLOW_CALLBACK_DURATION, SLOW_CALLBACK};
pub use driver::{TimerDriver, TimerLoop, real_time_loop, run, virtual_time_loop};
pub(crate) use entry::TimerAction;
pub use entry::TimerHandle;
pub use heap::{
    MIN_CANCELLED_TIMER_HANDLES_FRACTION, MIN_SCHEDULED_TIMER_HANDLES, Scheduled, TimerHeap,
};
pub use oneloop_core::LoopError;
pub use run_with::{run_debug, run_with};
pub use select_timeout::select_timeout;
pub(crate) use sleep::SleepState;
pub use sleep::{Sleep, sleep};
pub use timeout::{TimedOut, Timeout, timeout};
pub use timers::{
    LoopTimers, MAXIMUM_SELECT_TIMEOUT, Timers, block_for, call_at, call_later, time,
};

pub(crate) use hooks::*;

/// What this stage lends to the layers above it (as in the reference crate).
pub mod hooks {
    pub use crate::debug::slow_callback_message;
    pub use crate::entry::{TimerEntry, TimerId};
}
