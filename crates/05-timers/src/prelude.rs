//! asyncio's timer methods on the loop itself: `use oneloop_timers::prelude::*`.
//!
//! In asyncio, `call_later`, `call_at`, `time` and `set_debug` are methods of the loop.
//! In oneloop the loop type belongs to stage 4, and Rust lets only the crate that
//! defines a type add inherent methods to it. So this stage adds them the one way a
//! later crate can: a trait, [`TimerMethods`], implemented for the loop's [`Core`].
//! An [`EventLoop`](oneloop_core::EventLoop) of any driver dereferences to its core,
//! so once the trait is in scope `event_loop.call_later(..)` reads as it does in
//! Python. The same methods work on the running loop's core, found with
//! [`with_current`](oneloop_core::hooks::with_current).
//!
//! A trait rather than a loop type of this stage's own: the loops of stages 6 and 7
//! are the same `EventLoop` with more drivers under it, and a wrapper type per stage
//! would have to repeat every method of the loop. The price is the `use` line, and a
//! panic (with the message below) on a loop built without a timer driver.
//!
//! ```
//! use std::cell::RefCell;
//! use std::rc::Rc;
//! use std::time::Duration;
//! use oneloop_timers::prelude::*;
//! use oneloop_timers::virtual_time_loop;
//!
//! let mut event_loop = virtual_time_loop();
//! let log = Rc::new(RefCell::new(Vec::new()));
//! let (late, early) = (Rc::clone(&log), Rc::clone(&log));
//! event_loop.call_later(Duration::from_secs(2), move || late.borrow_mut().push("later"));
//! event_loop.call_at(Duration::from_secs(1), move || early.borrow_mut().push("at"));
//! event_loop
//!     .run_until_complete(oneloop_timers::sleep(Duration::from_secs(3)))
//!     .expect("main finishes");
//! assert_eq!(*log.borrow(), ["at", "later"]);
//! assert_eq!(event_loop.time(), Duration::from_secs(3));
//! ```

use std::time::Duration;

use oneloop_core::Core;

use crate::{LoopTimers, TimerHandle};

// ANCHOR: timer_methods
/// asyncio's timer methods of the loop, for a loop with a timer driver.
///
/// Each method panics when the loop was built without a timer driver.
pub trait TimerMethods {
    /// Schedules `callback` to run `delay` from now (asyncio's `loop.call_later`).
    fn call_later(&self, delay: Duration, callback: impl FnOnce() + 'static) -> TimerHandle;

    /// Schedules `callback` at `when` on the loop's clock (asyncio's `loop.call_at`).
    fn call_at(&self, when: Duration, callback: impl FnOnce() + 'static) -> TimerHandle;

    /// The time on the loop's clock (asyncio's `loop.time()`).
    fn time(&self) -> Duration;

    /// Turns debug mode on or off (asyncio's `loop.set_debug`).
    fn set_debug(&self, on: bool);

    /// Whether debug mode is on (asyncio's `loop.get_debug`).
    fn get_debug(&self) -> bool;
}

impl TimerMethods for Core {
    fn call_later(&self, delay: Duration, callback: impl FnOnce() + 'static) -> TimerHandle {
        self.timers().call_later(delay, callback)
    }

    fn call_at(&self, when: Duration, callback: impl FnOnce() + 'static) -> TimerHandle {
        self.timers().call_at(when, callback)
    }

    fn time(&self) -> Duration {
        self.timers().time()
    }

    fn set_debug(&self, on: bool) {
        self.timers().set_debug(on);
    }

    fn get_debug(&self) -> bool {
        self.timers().debug()
    }
}
// ANCHOR_END: timer_methods
