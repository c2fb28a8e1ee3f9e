//! `timeout` and `wait_for` built on the request-style cancel (asyncio 3.11's
//! `asyncio.timeout`; `wait_for` as 3.12 rewrote it on top of `timeout`).

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::rc::{Rc, Weak};
use std::time::Duration;

use oneloop_core::CallbackHandle;
use oneloop_core::hooks::with_current;
use oneloop_timers::TimerHandle;

use crate::error::{NO_CURRENT_TASK, TIMEOUT_OVER};
use crate::timeout_exit::timeout_exit;
use crate::{Error, TaskRef, current};

enum Armed {
    Timer(TimerHandle),
    Soon(CallbackHandle),
}

impl Armed {
    fn cancel(&self) {
        match self {
            Armed::Timer(handle) => handle.cancel(),
            Armed::Soon(handle) => handle.cancel(),
        }
    }
}

struct Inner {
    task: TaskRef,
    when: Cell<Option<Duration>>,
    armed: RefCell<Option<Armed>>,
    expired: Cell<bool>,
    exited: Cell<bool>,
}

/// The scope of one [`timeout_scope`]: read or move its deadline from inside
/// (asyncio's `Timeout.reschedule`).
#[derive(Clone)]
pub struct TimeoutScope {
    inner: Rc<Inner>,
}

impl fmt::Debug for TimeoutScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimeoutScope")
            .field("when", &self.inner.when.get())
            .field("expired", &self.inner.expired.get())
            .finish()
    }
}

impl TimeoutScope {
    /// The deadline, on the loop's clock (`None`: no deadline).
    pub fn when(&self) -> Option<Duration> {
        self.inner.when.get()
    }

    /// Whether the deadline passed and the scope cancelled its task.
    pub fn expired(&self) -> bool {
        self.inner.expired.get()
    }

    /// Moves the deadline (`None` removes it). A deadline already past cancels in the
    /// next turn, as asyncio's `call_soon`. Once the scope expired or ended, the
    /// deadline cannot move: `Err(Error::Misuse(TIMEOUT_OVER))`, as asyncio raises
    /// `RuntimeError` then.
    pub fn reschedule(&self, when: Option<Duration>) -> Result<(), Error> {
        let inner = &self.inner;
        if inner.exited.get() || inner.expired.get() {
            return Err(Error::Misuse(TIMEOUT_OVER));
        }
        if let Some(old) = inner.armed.borrow_mut().take() {
            old.cancel();
        }
        inner.when.set(when);
        let Some(when) = when else { return Ok(()) };
        let weak = Rc::downgrade(inner);
        let fire = move || on_timeout(&weak);
        let now = oneloop_timers::time();
        let armed = if when <= now {
            with_current(|core| Armed::Soon(core.call_soon_named("_on_timeout", fire)))
        } else {
            oneloop_timers::Timers::current()
                .map(|timers| Armed::Timer(timers.call_at_named(when, "_on_timeout", fire)))
        };
        *inner.armed.borrow_mut() = armed;
        Ok(())
    }
}

fn on_timeout(inner: &Weak<Inner>) {
    if let Some(inner) = inner.upgrade() {
        inner.armed.borrow_mut().take();
        inner.task.cancel(None);
        inner.expired.set(true);
    }
}

// ANCHOR: timeout_scope
/// Runs `body` with a deadline at `when` on the loop's clock (`None`: none yet),
/// in the current task (asyncio's `async with asyncio.timeout_at(when) as scope`).
///
/// At the deadline the scope cancels its task. When the body ends, if the scope had
/// expired, it takes its own request back (`uncancel`); only when no other request is
/// left and the body ended cancelled is the result turned into `Err(TimedOut)`. A
/// cancel from outside during the body stays a cancel.
pub async fn timeout_scope<T, F, Fut>(when: Option<Duration>, body: F) -> Result<T, Error>
where
    F: FnOnce(TimeoutScope) -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    let Some(task) = current() else {
        return Err(Error::Misuse(NO_CURRENT_TASK));
    };
    let cancelling = task.cancelling();
    let scope = TimeoutScope {
        inner: Rc::new(Inner {
            task: task.clone(),
            when: Cell::new(None),
            armed: RefCell::new(None),
            expired: Cell::new(false),
            exited: Cell::new(false),
        }),
    };
    scope
        .reschedule(when)
        .expect("a new scope has neither expired nor ended");
    let ends = EndsScope(&scope.inner);
    let result = body(scope.clone()).await;
    drop(ends);
    timeout_exit(&task, cancelling, scope.expired(), result)
}
// ANCHOR_END: timeout_scope

/// Ends a scope when its body is over, or when the scope is dropped first (a select's
/// loser, an aborted task): its timer is cancelled, so that it neither cancels the task
/// later nor stays on the heap, and its deadline can no longer move.
struct EndsScope<'a>(&'a Inner);

impl Drop for EndsScope<'_> {
    fn drop(&mut self) {
        self.0.exited.set(true);
        if let Some(armed) = self.0.armed.borrow_mut().take() {
            armed.cancel();
        }
    }
}

/// `future` with a deadline at `when` (asyncio's `timeout_at`).
pub async fn timeout_at<T>(
    when: Duration,
    future: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    timeout_scope(Some(when), |_| future).await
}

/// `future` with a deadline `delay` from now (asyncio's `timeout`).
///
/// # Panics
///
/// When no loop with a timer driver is running on this thread.
pub async fn timeout<T>(
    delay: Duration,
    future: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    let when = oneloop_timers::time() + delay;
    timeout_scope(Some(when), |_| future).await
}

/// asyncio's `wait_for` with 3.12's semantics: [`timeout`] around `future`, run in
/// the current task (3.11 wraps the future in a task of its own).
///
/// # Panics
///
/// When no loop with a timer driver is running on this thread.
pub async fn wait_for<T>(
    delay: Duration,
    future: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    timeout(delay, future).await
}
