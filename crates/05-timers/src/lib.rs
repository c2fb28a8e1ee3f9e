//! Stage 5 of oneloop: timers.
//!
//! Stage 4's loop could only run what was already ready: with nothing queued it parked
//! its [`Driver`](oneloop_core::Driver) with no timeout and waited for another thread.
//! This stage gives it an alarm clock. It adds asyncio's `_scheduled` heap and the three
//! steps of `_run_once` that use it:
//!
//! 1. **sweep** — cancelled timers stay in the heap (lazy deletion) and are counted;
//!    at the start of each turn, when more than 100 timers are scheduled and more than
//!    half are cancelled, the heap is rebuilt without them, otherwise cancelled timers
//!    are popped from the head only;
//! 2. **timeout** — the park may last until the earliest deadline (zero if something is
//!    ready, at most one day, for ever if there is no timer);
//! 5. **due timers** — after parking, every timer due before `now + resolution` goes to
//!    the back of the ready queue.
//!
//! None of it touches the core. The timer layer is a [`TimerDriver`] that *wraps* any
//! inner driver: its `park` sweeps, shortens the timeout, parks the inner driver (which
//! pushes its own events first) and then pushes the due timers. Its shared half,
//! [`Timers`], sits in the loop's extensions, where [`call_later`], [`sleep`] and
//! [`time`] find it through the core's one thread-local.
//!
//! asyncio's loop has `call_later`, `call_at`, `time` and `set_debug` as methods; with
//! `use oneloop_timers::prelude::*` ([`prelude`]) oneloop's loop has them too, and
//! [`run_with`] and [`run_debug`] are `asyncio.run` with a setup hook and with
//! `debug=True`.
//!
//! Time comes from a [`Clock`]. The [`RealClock`] is monotonic; the [`VirtualClock`]
//! jumps to each deadline instead of waiting, so the tests can assert whole timelines
//! exactly, and [`block_for`] stands in for a blocking call on the loop's thread.
//!
//! Where Rust differs from asyncio:
//!
//! - A sleep is cancelled by dropping it: its `Drop` cancels the timer, where asyncio's
//!   `sleep` cancels in a `finally`. `timeout` drops the inner future when time is up.
//! - Waking stays two hops, as in asyncio: the timer's callback runs in one turn and
//!   wakes the task, whose step runs in the next.
//! - Debug mode reports slow handles through the loop's exception handler, timed on the
//!   loop's clock, so virtual time can make a callback slow.
//!
//! ```
//! use std::time::Duration;
//! use oneloop_core::{EventLoop, ThreadParker, gather};
//! use oneloop_timers::{TimerDriver, sleep, time};
//!
//! // Timers over the default driver, on a virtual clock: no real waiting.
//! let mut event_loop = EventLoop::with_driver(TimerDriver::virtual_time(ThreadParker));
//! let (names, finished) = event_loop
//!     .run_until_complete(async {
//!         let naps = [("slow", 300), ("quick", 100), ("middle", 200)].map(|(name, ms)| async move {
//!             sleep(Duration::from_millis(ms)).await;
//!             name
//!         });
//!         let names = gather(naps).await.expect("no child panics");
//!         (names, time())
//!     })
//!     .expect("main finishes");
//! assert_eq!(names, ["slow", "quick", "middle"]);
//! assert_eq!(finished, Duration::from_millis(300));
//! ```
#![forbid(unsafe_code)]

mod clock;
mod debug;
mod driver;
mod entry;
mod heap;
mod order;
pub mod prelude;
mod run_with;
mod select_timeout;
mod sleep;
mod sleep_poll;
mod sweep;
mod timeout;
mod timers;

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

/// What this stage lends to the layers above it: the heap's entries and ids, and the
/// slow-callback report's text.
pub mod hooks {
    pub use crate::debug::slow_callback_message;
    pub use crate::entry::{TimerEntry, TimerId};
}
