//! The wake path on the loop's own thread.
#![allow(unused_variables, unused_imports)]

use oneloop_task::TaskId;

use crate::{Core, Handle};

impl Core {
    /// Queues one step of task `id`, called by its waker on the loop's thread.
    ///
    /// This is asyncio's `call_soon` of the task's next step (`__step` after a bare
    /// yield; `__wakeup`, which calls `__step`, when an awaited future completes): the
    /// step goes to the back of the ready queue, behind everything already queued. A
    /// task whose step is already queued is not queued twice (its `queued` flag says
    /// so), so two wakes in one turn give one step, in the first wake's position. A
    /// stale id queues nothing.
    pub(crate) fn wake_here(&self, id: TaskId) {
        todo!(
            "stage 4, exercise 1: mark the task queued and push its step, once — see \
             chapter 4.1"
        )
    }
}
