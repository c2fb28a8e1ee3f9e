//! `Deliver`: the job's duty to answer the future that waits on it, even if it never runs.
//!
//! A job handed to the pool is a closure; the pool may drop it without calling it (a
//! worker thread died outside any job, and the pool threw its queue away). The future
//! awaiting that job would then wait for ever. So the job carries a `Deliver`, the owner
//! of its one answer: the job's code calls [`send`](Deliver::send) with the outcome
//! (exercise 3, in `run_in_executor.rs`); if the job is dropped before that, `Deliver`'s
//! `Drop` sends [`OffloadError::PoolBroken`] instead. Either way the answer travels the
//! same road, through `call_soon_threadsafe`, and completes the future on the loop's
//! thread. asyncio's `ThreadPoolExecutor` keeps the same duty where its workers can fail
//! (a thread initializer that raises): it marks itself broken and fails the future of
//! every queued work item with `BrokenThreadPool`.

use std::fmt;
use std::sync::Arc;
use std::thread;

use crate::offloaded::Completion;
use crate::{LoopHandle, OffloadError};

/// Why the future of a job dropped unrun resolves to [`OffloadError::PoolBroken`].
pub(crate) const DROPPED_UNRUN: &str = "the job was dropped before it ran (a worker thread \
died outside any job, and the pool dropped its queue)";

// ANCHOR: deliver
/// The owner of one job's answer: it reaches the awaiting future exactly once.
pub(crate) struct Deliver<T: Send + 'static> {
    /// The future's other half.
    pub(crate) completion: Arc<Completion<T>>,
    /// The way back to the future's loop.
    pub(crate) handle: LoopHandle,
    /// Set by `send` before it hands the outcome over: the drop then has nothing to do.
    pub(crate) sent: bool,
}
// ANCHOR_END: deliver

impl<T: Send + 'static> Deliver<T> {
    pub(crate) fn new(completion: Arc<Completion<T>>, handle: LoopHandle) -> Self {
        Self {
            completion,
            handle,
            sent: false,
        }
    }
}

// ANCHOR: deliver_drop
impl<T: Send + 'static> Drop for Deliver<T> {
    /// The job never answered: answer for it, through the loop, with `PoolBroken`.
    fn drop(&mut self) {
        // `send` sets `sent` before it calls anything that could panic, so a panic
        // inside it ends here with nothing to do. A drop while this thread unwinds for
        // another reason does nothing either: a second panic now would abort the whole
        // process, and `call_soon_threadsafe` is the kind of code that may panic (in
        // the exercise crate it is a `todo!` until exercise 1 is done). The pool drops
        // the jobs it gives up on after its `catch_unwind` has returned, never while
        // unwinding, so their drop always gets here with `panicking()` false.
        if self.sent || thread::panicking() {
            return;
        }
        let completion = Arc::clone(&self.completion);
        // Fails only if the loop is closed: then nobody awaits the answer.
        let _ = self
            .handle
            .call_soon_threadsafe_named("run_in_executor dropped job", move || {
                completion.complete(Err(OffloadError::PoolBroken(DROPPED_UNRUN.to_owned())));
            });
    }
}
// ANCHOR_END: deliver_drop

impl<T: Send + 'static> fmt::Debug for Deliver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deliver")
            .field("handle", &self.handle)
            .field("sent", &self.sent)
            .finish()
    }
}
