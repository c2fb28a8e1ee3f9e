//! Submitting a function to a pool, and handing its result back through the loop.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::deliver::Deliver;
use crate::offloaded::{Completion, Offloaded, Outcome, panic_message};
use crate::{LoopHandle, OffloadError, ThreadPool};

// ANCHOR: send
impl<T: Send + 'static> Deliver<T> {
    /// Hands `outcome` to the loop: the future it completes resumes there.
    ///
    /// - Set `self.sent` **first**: from then on the drop of `self` (at the end of this
    ///   call, or while a panic below unwinds) sends nothing more.
    /// - Then call `self.handle.call_soon_threadsafe_named(..)` with a callback that,
    ///   run on the loop's thread, calls `complete(outcome)` on (a clone of) the
    ///   completion. If the loop is closed by then, nobody awaits the outcome: drop it.
    ///
    /// The worker never touches the completion itself: the loop's thread does, when it
    /// runs the callback.
    pub(crate) fn send(mut self, outcome: Outcome<T>) {
        self.sent = true;
        let completion = Arc::clone(&self.completion);
        // Fails only if the loop is closed: then no task awaits the outcome, and
        // dropping it here is all there is to do.
        let _ = self
            .handle
            .call_soon_threadsafe_named("run_in_executor result", move || {
                completion.complete(outcome);
            });
    }
}
// ANCHOR_END: send

// ANCHOR: submit_to
/// Runs `f` on `pool`; the returned future resolves on the loop of `handle`.
///
/// - Make a [`Completion`]; the future keeps one `Arc` of it, a [`Deliver`] made with
///   `Deliver::new(.., handle)` the other.
/// - Submit a job (a `move` closure that owns the `Deliver`) that runs `f` inside
///   `panic::catch_unwind` (a panic becomes [`OffloadError::Panicked`] with the panic's
///   message: `panic_message` takes the payload, and drops it safely, since a payload's
///   own drop may panic), then calls `send(outcome)`. A job the pool drops
///   without running it drops its `Deliver`, which answers `PoolBroken` by itself.
/// - Return [`Offloaded::waiting`] if the pool took the job, else
///   [`Offloaded::failed`] with the pool's error.
pub(crate) fn submit_to<T, F>(pool: &ThreadPool, handle: LoopHandle, f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let completion = Completion::new();
    let deliver = Deliver::new(Arc::clone(&completion), handle);
    let job = move || {
        let outcome = panic::catch_unwind(AssertUnwindSafe(f))
            .map_err(|payload| OffloadError::Panicked(panic_message(payload)));
        deliver.send(outcome);
    };
    match pool.submit(job) {
        Ok(()) => Offloaded::waiting(completion),
        Err(error) => Offloaded::failed(error),
    }
}
// ANCHOR_END: submit_to
