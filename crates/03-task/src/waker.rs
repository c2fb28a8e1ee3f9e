//! Wakers that carry ids, and the [`Schedule`] trait they call.
//!
//! asyncio's `Task.__wakeup` is a bound method: the future that completes holds a
//! reference to the task itself and calls `loop.call_soon(task.__wakeup, future)`; in a
//! later turn `__wakeup` runs and calls `__step`. A Rust waker could do the same by
//! holding the task's future, but then every future would have to be `Send + Sync` (a
//! [`Waker`] may travel to any thread), and a waker kept after the task finished would
//! keep its future alive.
//!
//! So a oneloop waker holds two small things: the [`TaskId`] of the task it wakes, and
//! a shared scheduler that knows what "schedule a step of task N" means. The futures stay
//! in the executor's slab, on the executor's thread; the waker is `Send + Sync` because
//! an id and an `Arc` of a thread-safe scheduler are.

use std::sync::Arc;
use std::task::{Wake, Waker};

use crate::TaskId;

// ANCHOR: schedule
/// What a waker does when woken: arrange for one more step of the task `id`.
///
/// The naive executor of this stage pushes the id on a locked queue. The loop of stage 4
/// pushes a step handle on its ready queue when woken on its own thread. Either way the
/// task does not run inside `wake`: it runs later, when the executor pops it.
///
/// A stale id (its task finished, its slot reused) must be harmless: implementations
/// may schedule it, and the step then finds the generation changed and does nothing.
pub trait Schedule: Send + Sync + 'static {
    /// Schedules one step of the task `id`. Called from any thread, any number of times.
    fn schedule(&self, id: TaskId);
}
// ANCHOR_END: schedule

// ANCHOR: task_waker
/// The state behind every task's [`Waker`]: which task, and who schedules it.
#[derive(Debug)]
pub struct TaskWaker<S> {
    id: TaskId,
    scheduler: Arc<S>,
}

impl<S: Schedule> Wake for TaskWaker<S> {
    fn wake(self: Arc<Self>) {
        self.scheduler.schedule(self.id);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.scheduler.schedule(self.id);
    }
}
// ANCHOR_END: task_waker

impl<S> TaskWaker<S> {
    /// The task this waker wakes.
    pub fn id(&self) -> TaskId {
        self.id
    }
}

impl<S: Schedule> TaskWaker<S> {
    /// A waker state for task `id`, scheduled by `scheduler`.
    pub fn new(id: TaskId, scheduler: Arc<S>) -> Arc<Self> {
        Arc::new(Self { id, scheduler })
    }

    /// Gives `this` to task `id`, if no one else holds it (no clone, no `Waker` made
    /// from it is alive): then no wake meant for its old task can reach the new one.
    /// Returns `false`, changing nothing, otherwise.
    pub(crate) fn reuse(this: &mut Arc<Self>, id: TaskId) -> bool {
        match Arc::get_mut(this) {
            Some(waker) => {
                waker.id = id;
                true
            }
            None => false,
        }
    }

    /// A [`Waker`] for this task. Only a reference count changes: nothing is allocated.
    pub fn waker(self: &Arc<Self>) -> Waker {
        Waker::from(Arc::clone(self))
    }
}
