//! Submitting a function to a pool, and handing its result back through the loop.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::offloaded::{Completion, Offloaded, panic_message};
use crate::{LoopHandle, OffloadError, ThreadPool};

// ANCHOR: submit_to
/// Runs `f` on `pool`; the returned future resolves on the loop of `handle`.
///
/// - Make a [`Completion`] and keep one `Arc` of it for the future.
/// - Submit a job to `pool` that runs `f` inside `panic::catch_unwind` (a panic becomes
///   [`OffloadError::Panicked`] with the panic's message, see `panic_message`), then
///   hands the outcome to the loop with `handle.call_soon_threadsafe_named(..)`: the
///   callback, run on the loop's thread, calls `complete(outcome)` on the completion.
///   If the loop is closed by then, nobody awaits the outcome: drop it.
/// - Return [`Offloaded::waiting`] if the pool took the job, else
///   [`Offloaded::failed`] with the pool's error.
///
/// The worker never touches the completion's waker itself: the loop's thread does,
/// when it runs the callback.
pub(crate) fn submit_to<T, F>(pool: &ThreadPool, handle: LoopHandle, f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let completion = Completion::new();
    let done = Arc::clone(&completion);
    let job = move || {
        let outcome = panic::catch_unwind(AssertUnwindSafe(f))
            .map_err(|payload| OffloadError::Panicked(panic_message(&*payload)));
        // Fails only if the loop is closed: then no task awaits the outcome, and
        // dropping it here is all there is to do.
        let _ = handle.call_soon_threadsafe_named("run_in_executor result", move || {
            done.complete(outcome);
        });
    };
    match pool.submit(job) {
        Ok(()) => Offloaded::waiting(completion),
        Err(error) => Offloaded::failed(error),
    }
}
// ANCHOR_END: submit_to
