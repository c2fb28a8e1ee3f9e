//! The one error type of this layer: what a Python task could raise.

use std::error;
use std::fmt;

/// Why a task or a cancellation point produced no value.
///
/// Each variant stands for an exception asyncio code meets: `CancelledError`,
/// `TimeoutError`, an ordinary exception, an `ExceptionGroup`, and the `RuntimeError`s
/// of misuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A cancel request was delivered (asyncio's `CancelledError`), with its message.
    /// An aborted task reports this too, with no message.
    Cancelled(Option<String>),
    /// A timeout expired (asyncio's `TimeoutError`).
    TimedOut,
    /// The task's own failure (any other exception), with its text.
    Failed(String),
    /// Every failure of a task group, in the order they were seen.
    Group(Vec<Error>),
    /// The task's future panicked; the message is kept.
    Panicked(String),
    /// The API was misused (asyncio raises `RuntimeError` or `InvalidStateError`).
    Misuse(&'static str),
}

impl Error {
    /// Whether this is a delivered cancel.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Cancelled(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cancelled(None) => f.write_str("cancelled"),
            Error::Cancelled(Some(message)) => write!(f, "cancelled: {message}"),
            Error::TimedOut => f.write_str("timed out"),
            Error::Failed(message) => write!(f, "failed: {message}"),
            Error::Group(errors) => {
                write!(
                    f,
                    "unhandled errors in a task group ({} sub-errors)",
                    errors.len()
                )
            }
            Error::Panicked(message) => write!(f, "the task panicked: {message}"),
            Error::Misuse(message) => f.write_str(message),
        }
    }
}

impl error::Error for Error {}

/// The message of a misuse: the group's body has returned and its children are done.
pub const GROUP_FINISHED: &str = "the task group is finished: it cannot take new tasks";
/// The message of a misuse: the group is cancelling its children.
pub const GROUP_SHUTTING_DOWN: &str = "the task group is shutting down: it cannot take new tasks";
/// The message of a misuse: a successful result was already taken from this handle.
pub const RESULT_TAKEN: &str = "the task's result was already taken by an earlier await";
/// The message of a misuse: the call needs to run inside a task of this layer.
pub const NO_CURRENT_TASK: &str = "no oneloop-cancel task is running on this thread";
/// The message of a misuse: a timeout scope's deadline moved after it expired or ended.
pub const TIMEOUT_OVER: &str = "the timeout has expired or ended: its deadline cannot move";
/// The message of a misuse: `wait` was given no task (asyncio raises `ValueError`).
pub const WAIT_NOTHING: &str = "wait needs at least one task";
/// The message of a misuse: the loop the abort was meant for is closed.
pub const LOOP_CLOSED: &str = "the task's loop is closed";
