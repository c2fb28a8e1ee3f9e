//! The worker loop: what every thread of the pool runs.

use std::panic::{self, AssertUnwindSafe};
use std::sync::PoisonError;

use crate::pool::{Phase, PoolShared};

// ANCHOR: worker_loop
/// Runs jobs until the pool shuts down or this thread has been idle for `keep_alive`.
///
/// - Lock the state. Loop:
///   - If a job is queued, take the oldest, count it in `running`, **unlock**, run it
///     inside `panic::catch_unwind` (a panicking job must not kill the worker), lock
///     again, uncount it (and count a panic in `panicked`), and notify `changed`
///     (`shutdown` may be waiting for `running` to reach zero).
///   - Else, if the phase is not `Open`, return.
///   - Else count yourself in `idle`, wait on `work` with `wait_timeout(keep_alive)`,
///     uncount yourself; if the wait timed out and the queue is still empty, return.
///
/// The caller gives the thread's count back when this returns.
pub(crate) fn worker_loop(shared: &PoolShared) {
    let mut state = shared.lock();
    loop {
        if let Some(job) = state.queue.pop_front() {
            state.running += 1;
            drop(state);
            // The payload of a panic is dropped at once, before the lock is taken.
            let panicked = panic::catch_unwind(AssertUnwindSafe(job)).is_err();
            state = shared.lock();
            state.running -= 1;
            if panicked {
                state.panicked += 1;
            }
            shared.changed.notify_all();
            continue;
        }
        if state.phase != Phase::Open {
            return;
        }
        state.idle += 1;
        let (guard, wait) = shared
            .work
            .wait_timeout(state, shared.keep_alive)
            .unwrap_or_else(PoisonError::into_inner);
        state = guard;
        state.idle -= 1;
        if wait.timed_out() && state.queue.is_empty() {
            return;
        }
    }
}
// ANCHOR_END: worker_loop
