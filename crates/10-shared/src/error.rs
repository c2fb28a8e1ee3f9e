//! The misuse messages of this stage, and the errors of a queue.

use std::error;
use std::fmt;

use oneloop_cancel::Error;

/// Misuse: `release` of a lock that is not held (asyncio's `RuntimeError`).
pub const LOCK_NOT_ACQUIRED: &str = "release of a lock that is not acquired";
/// Misuse: `release` of a bounded semaphore above its initial value.
pub const BOUNDED_OVER_RELEASE: &str = "a bounded semaphore was released too many times";
/// Misuse: `task_done` called more times than items were put.
pub const TASK_DONE_TOO_OFTEN: &str = "task_done was called more times than items were put";
/// Misuse: `wait` or `notify` on a condition whose lock is not held.
pub const CONDITION_NOT_LOCKED: &str = "a condition was used without holding its lock";
/// Misuse: a primitive that waited on one loop is waited on from another.
pub const BOUND_TO_ANOTHER_LOOP: &str =
    "this primitive is bound to another event loop (the first one it waited on)";
/// A barrier was aborted, or a party left it while it filled (asyncio's
/// `BrokenBarrierError`).
pub const BARRIER_BROKEN: &str = "the barrier is broken";

/// Why a queue operation gave no item or took none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    /// `put_nowait` on a full queue (asyncio's `QueueFull`).
    Full,
    /// `get_nowait` on an empty queue (asyncio's `QueueEmpty`).
    Empty,
    /// The queue was shut down (3.13's `QueueShutDown`).
    ShutDown,
    /// A cancel was delivered while the operation waited.
    Cancelled(Option<String>),
    /// The queue was misused (see [`TASK_DONE_TOO_OFTEN`], [`BOUND_TO_ANOTHER_LOOP`]).
    Misuse(&'static str),
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::Full => f.write_str("the queue is full"),
            QueueError::Empty => f.write_str("the queue is empty"),
            QueueError::ShutDown => f.write_str("the queue is shut down"),
            QueueError::Cancelled(message) => Error::Cancelled(message.clone()).fmt(f),
            QueueError::Misuse(message) => f.write_str(message),
        }
    }
}

impl error::Error for QueueError {}

impl From<QueueError> for Error {
    /// A delivered cancel stays a cancel, so that `?` ends the task cancelled.
    fn from(error: QueueError) -> Self {
        match error {
            QueueError::Cancelled(message) => Error::Cancelled(message),
            QueueError::Misuse(message) => Error::Misuse(message),
            other => Error::Failed(other.to_string()),
        }
    }
}

impl From<Error> for QueueError {
    fn from(error: Error) -> Self {
        match error {
            Error::Cancelled(message) => QueueError::Cancelled(message),
            Error::Misuse(message) => QueueError::Misuse(message),
            _ => QueueError::Misuse("a queue wait failed for a reason of its own"),
        }
    }
}
