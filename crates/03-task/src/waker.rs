//! Wakers that carry ids, and the [`Schedule`] trait they call.
//!
//! asyncio's `Task.__wakeup` is a bound method: the future that completes holds a
//! reference to the task itself and calls `loop.call_soon(task.__wakeup, future)`; in a
//! later turn `__wakeup` runs and calls `__step`. A Rust waker could do the same by
//! holding the task's future, but then every future would have to be `Send + Sync` (a
//! [`Waker`](std::task::Waker) may travel to any thread), and a waker kept after the
//! task finished would keep its future alive.
//!
//! So a oneloop waker reads two small things: the [`TaskId`] of the task it wakes, and
//! a shared scheduler that knows what "schedule a step of task N" means. Both sit in
//! the task's header, at the front of the task's one allocation
//! ([`TaskCell`](crate::TaskCell)); the future sits behind them, where only the loop's
//! thread goes. The waker is `Send + Sync` because an id and an `Arc` of a thread-safe
//! scheduler are, and its four functions read nothing else.

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
