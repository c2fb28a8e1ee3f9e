//! The wake path on the loop's own thread.

use oneloop_task::TaskId;

use crate::{Core, Handle};

// ANCHOR: wake_here
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
        let label = self.tasks.borrow_mut().mark_queued(id);
        if let Some(label) = label {
            self.ready.push(Handle::step(id, label));
        }
    }
}
// ANCHOR_END: wake_here
