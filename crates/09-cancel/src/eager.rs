//! Eager tasks: the first step runs inside `spawn` (Python 3.12's `eager_start=True`
//! and `eager_task_factory`).
//!
//! A task spawned the ordinary way waits in the ready queue for its first step, so
//! even a task that never suspends costs a handle and a place in a coming turn. An
//! eager task is polled once, right away, inside the spawning code:
//!
//! - if that step finishes the task, the loop never sees it: no handle is queued, no
//!   turn is spent, and `spawn` returns a handle that is already done;
//! - if it suspends, the task is handed to the loop *without* a queued step. What it
//!   suspended on holds a waker that reaches the loop's task, and the task's next step
//!   is queued when that waker is woken, as for any task.
//!
//! The step runs with the new task as the current one (stage 9's [`current`]), and the
//! spawning task is current again afterwards, even when one eager spawn happens inside
//! another task's step.
//!
//! [`current`]: crate::current

use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use oneloop_core::Core;
use oneloop_core::hooks::{panic_message, with_current};

use crate::shutdown::register;
use crate::{Error, Task, task_future};

/// The loop-wide choice of [`set_eager_start`], kept in the loop's extensions.
struct EagerStart(bool);

/// Makes every later [`spawn`](crate::spawn) on this loop eager, or not (Python 3.12's
/// `loop.set_task_factory(asyncio.eager_task_factory)`).
pub fn set_eager_start(core: &Core, eager: bool) {
    core.extensions().insert(Rc::new(EagerStart(eager)));
}

/// Whether the running loop spawns eagerly by default.
pub(crate) fn eager_by_default() -> bool {
    with_current(|core| core.extensions().get::<EagerStart>().is_some_and(|e| e.0)).unwrap_or(false)
}

/// Where the first step's wakes go: nowhere yet (remember one), then the loop's task.
enum Target {
    NotYet { woken: bool },
    Task(Waker),
}

/// The waker of an eager task's first step. The task is not in the loop while that
/// step runs, so a wake (a `yield_now`, a future already complete) is remembered and
/// passed on once the loop's task exists.
struct Forward(Mutex<Target>);

impl Wake for Forward {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let waker = {
            let mut target = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            match &mut *target {
                Target::NotYet { woken } => {
                    *woken = true;
                    None
                }
                Target::Task(waker) => Some(waker.clone()),
            }
        };
        // Woken with the lock released: a wake may run code that wakes again.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Forward {
    /// Points the wakes at the loop's task; a wake already received is passed on now.
    fn aim(&self, waker: Waker) {
        let previous = mem::replace(
            &mut *self.0.lock().unwrap_or_else(PoisonError::into_inner),
            Target::Task(waker.clone()),
        );
        if let Target::NotYet { woken: true } = previous {
            waker.wake();
        }
    }
}

// ANCHOR: spawn_eager
/// Spawns `future` as an eager task: its first step runs now, inside this call.
///
/// A task that finishes in that step is done when this returns, and the loop never
/// queued anything for it. A task that suspends is handed to the loop with no step
/// queued; whatever it waits on wakes it as usual.
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn_eager_named<T, F>(name: &str, future: F) -> Task<T>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    assert!(
        with_current(|_| ()).is_some(),
        "oneloop_cancel::spawn_eager needs a running loop on this thread"
    );
    let (mut driven, task) = task_future(name, future);
    let forward = Arc::new(Forward(Mutex::new(Target::NotYet { woken: false })));
    let waker = Waker::from(Arc::clone(&forward));
    // The task's own step, polled here: it makes the new task the current one for
    // the poll and puts the spawner back afterwards. A panic ends the task, as it
    // would in a step the loop ran; the spawner goes on.
    let first = panic::catch_unwind(AssertUnwindSafe(|| {
        Pin::new(&mut driven).poll(&mut Context::from_waker(&waker))
    }));
    match first {
        Ok(Poll::Ready(())) => return task,
        Ok(Poll::Pending) => {}
        Err(payload) => {
            driven.end_panicked(panic_message(payload));
            return task;
        }
    }
    register(&task.ctl);
    let handed = with_current(|core| core.spawn_parked_named(name.to_owned(), driven))
        .expect("checked above: a loop is running");
    let (join, scheduler) = handed;
    // The loop's own join handle is not needed: the outcome cell says everything.
    drop(join);
    forward.aim(scheduler);
    task
}
// ANCHOR_END: spawn_eager

/// [`spawn_eager_named`] with the name "task".
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn_eager<T, F>(future: F) -> Task<T>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    spawn_eager_named("task", future)
}
