//! Submitting a function to a pool, and handing its result back through the loop.
#![allow(unused_variables)]

use crate::offloaded::Offloaded;
use crate::{LoopHandle, ThreadPool};

/// Runs `f` on `pool`; the returned future resolves on the loop of `handle`.
///
/// - Make a `Completion` and keep one `Arc` of it for the future.
/// - Submit a job to `pool` that runs `f` inside `panic::catch_unwind` (a panic becomes
///   `OffloadError::Panicked` with the panic's message, see `panic_message`), then
///   hands the outcome to the loop with `handle.call_soon_threadsafe_named(..)`: the
///   callback, run on the loop's thread, calls `complete(outcome)` on the completion.
///   If the loop is closed by then, nobody awaits the outcome: drop it.
/// - Return `Offloaded::waiting` if the pool took the job, else `Offloaded::failed`
///   with the pool's error.
///
/// The worker never touches the completion's waker itself: the loop's thread does,
/// when it runs the callback.
pub(crate) fn submit_to<T, F>(pool: &ThreadPool, handle: LoopHandle, f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    todo!(
        "stage 7, exercise 3: submit a job that runs f with catch_unwind and completes \
         the future through call_soon_threadsafe — see chapter 7.3"
    )
}
