//! Submitting a function to a pool, and handing its result back through the loop.
#![allow(unused_variables, unused_mut)]

use crate::deliver::Deliver;
use crate::offloaded::{Offloaded, Outcome};
use crate::{LoopHandle, ThreadPool};

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
        todo!(
            "stage 7, exercise 3: mark the answer sent, then complete the future through \
             call_soon_threadsafe — see chapter 7.3"
        )
    }
}

/// Runs `f` on `pool`; the returned future resolves on the loop of `handle`.
///
/// - Make a `Completion`; the future keeps one `Arc` of it, a `Deliver` made with
///   `Deliver::new(.., handle)` the other.
/// - Submit a job (a `move` closure that owns the `Deliver`) that runs `f` inside
///   `panic::catch_unwind` (a panic becomes `OffloadError::Panicked` with the panic's
///   message: `panic_message` takes the payload, and drops it safely, since a payload's
///   own drop may panic), then calls `send(outcome)`. A job the pool drops
///   without running it drops its `Deliver`, which answers `PoolBroken` by itself.
/// - Return `Offloaded::waiting` if the pool took the job, else `Offloaded::failed`
///   with the pool's error.
pub(crate) fn submit_to<T, F>(pool: &ThreadPool, handle: LoopHandle, f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    todo!(
        "stage 7, exercise 3: submit a job that runs f with catch_unwind and sends its \
         outcome through a Deliver — see chapter 7.3"
    )
}
