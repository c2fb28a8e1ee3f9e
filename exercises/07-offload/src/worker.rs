//! The worker loop: what every thread of the pool runs.
#![allow(unused_variables)]

use crate::pool::PoolShared;

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
    todo!(
        "stage 7, exercise 2: the worker loop — take the oldest job and run it with \
         catch_unwind, or wait on the condvar when there is none — see chapter 7.3"
    )
}
