//! `sleep`: a waking timer, cancelled on drop.
//!
//! asyncio's `sleep(delay)` makes a future, schedules
//! `call_later(delay, _set_result_unless_cancelled, future)`, awaits the future, and
//! cancels the timer in a `finally`. oneloop's [`Sleep`] keeps the same shape with
//! fewer parts: the timer's entry is the future's state. It is a *waking* timer
//! ([`Timers::wake_later_named`](crate::Timers::wake_later_named)): it holds the
//! task's waker instead of a callback, and when its handle runs in the run phase it
//! marks itself fired and wakes the task, as the callback that sets the future's
//! result would. A `Drop` cancels the timer — Rust's cancellation is dropping the
//! future, so the `finally` becomes `Drop`. One sleep allocates the timer's entry, and
//! nothing else: the handle that runs it is the entry itself, its own cancel flag
//! (a self-cancelling handle of stage 4).
//!
//! `sleep(Duration::ZERO)` registers no timer: like asyncio's `sleep(0)`, it is a bare
//! yield that puts the task at the back of the ready queue.

use std::fmt;
use std::time::Duration;

use crate::TimerHandle;

// ANCHOR: sleep
/// Where a [`Sleep`] is in its life.
pub(crate) enum SleepState {
    /// Not polled yet: no timer exists.
    Unpolled {
        /// How long to sleep, counted from the first poll.
        delay: Duration,
    },
    /// `sleep(ZERO)` yielded once and will be ready on the next poll.
    Yielded,
    /// A waking timer is scheduled: its handle marks it fired and wakes the task.
    Waiting {
        /// The timer, cancelled if the sleep is dropped before it fires.
        timer: TimerHandle,
    },
    /// The sleep returned `Ready`.
    Done,
}

/// The future returned by [`sleep`].
#[must_use = "a future does nothing unless awaited"]
pub struct Sleep {
    pub(crate) state: SleepState,
}

/// Waits `delay` on the running loop's clock (asyncio's `asyncio.sleep`).
///
/// The timer is registered on the first poll. `sleep(Duration::ZERO)` is a bare yield,
/// like `yield_now`. Dropping the sleep cancels its timer.
///
/// # Panics
///
/// The first poll panics when no loop with a timer driver runs on this thread.
pub fn sleep(delay: Duration) -> Sleep {
    Sleep {
        state: SleepState::Unpolled { delay },
    }
}

impl Drop for Sleep {
    /// Cancels the timer if it has not fired: the heap keeps it, flagged and counted,
    /// until a sweep removes it. `cancel` touches no borrow of the loop, so a sleep may
    /// be dropped anywhere, in a callback or while a task is dropped at close.
    fn drop(&mut self) {
        if let SleepState::Waiting { timer, .. } = &self.state {
            timer.cancel();
        }
    }
}
// ANCHOR_END: sleep

impl Sleep {
    /// The timer behind this sleep, once the first poll registered it.
    pub fn timer(&self) -> Option<&TimerHandle> {
        match &self.state {
            SleepState::Waiting { timer, .. } => Some(timer),
            _ => None,
        }
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            SleepState::Unpolled { .. } => "unpolled",
            SleepState::Yielded => "yielded",
            SleepState::Waiting { .. } => "waiting",
            SleepState::Done => "done",
        };
        f.debug_struct("Sleep").field("state", &state).finish()
    }
}
