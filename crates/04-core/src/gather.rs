//! The future [`gather`](crate::gather) returns: one join handle per argument, and
//! the results that have come in, in argument order. How it is built and polled is in
//! `gather_poll.rs`.

use oneloop_task::JoinHandle;

// ANCHOR: gather_state
/// The future returned by [`gather`](crate::gather).
#[derive(Debug)]
#[must_use = "a future does nothing unless awaited (its tasks run anyway)"]
pub struct Gather<T> {
    /// One handle per argument, `None` once its result is in `results`.
    pub(crate) handles: Vec<Option<JoinHandle<T>>>,
    /// The result of each argument, once in.
    pub(crate) results: Vec<Option<T>>,
    /// How many handles are still `Some`.
    pub(crate) remaining: usize,
}

// The outputs are only ever moved, never pinned: a `Gather` may move freely.
impl<T> Unpin for Gather<T> {}
// ANCHOR_END: gather_state
