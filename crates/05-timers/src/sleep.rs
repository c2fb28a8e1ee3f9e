//! `sleep`: a one-shot wakeup plus a timer.
//!
//! asyncio's `sleep(delay)` makes a future, schedules
//! `call_later(delay, _set_result_unless_cancelled, future)`, awaits the future, and
//! cancels the timer in a `finally`. oneloop's [`Sleep`] is the same three parts: a
//! shared [`Wakeup`] (the one-shot future's state), a [`TimerHandle`] whose callback
//! fires the wakeup, and a `Drop` that cancels the timer — Rust's cancellation is
//! dropping the future, so the `finally` becomes `Drop`.
//!
//! `sleep(Duration::ZERO)` registers no timer: like asyncio's `sleep(0)`, it is a bare
//! yield that puts the task at the back of the ready queue.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::task::Waker;
use std::time::Duration;

use crate::TimerHandle;

// ANCHOR: wakeup
/// The one-shot state a sleep and its timer share: fired or not, and who to wake.
#[derive(Debug, Default)]
pub struct Wakeup {
    fired: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Wakeup {
    /// A wakeup that will wake `waker` when fired.
    pub fn new(waker: &Waker) -> Rc<Self> {
        Rc::new(Self {
            fired: Cell::new(false),
            waker: RefCell::new(Some(waker.clone())),
        })
    }

    /// Fires: marks it and wakes the waker (taken out first, so no borrow is held
    /// while the wake runs).
    pub fn fire(&self) {
        self.fired.set(true);
        let waker = self.waker.borrow_mut().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether [`fire`](Self::fire) ran.
    pub fn has_fired(&self) -> bool {
        self.fired.get()
    }

    /// Remembers `waker` as the one to wake, unless it would wake the same task.
    pub fn register(&self, waker: &Waker) {
        let mut slot = self.waker.borrow_mut();
        if !slot.as_ref().is_some_and(|old| old.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }
}
// ANCHOR_END: wakeup

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
    /// A timer is scheduled; its callback fires `wakeup`.
    Waiting {
        /// The timer, cancelled if the sleep is dropped before it fires.
        timer: TimerHandle,
        /// What the timer's callback fires.
        wakeup: Rc<Wakeup>,
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
