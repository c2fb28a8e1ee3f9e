//! What can go wrong with a one-shot future, as values rather than panics.
//!
//! asyncio raises `InvalidStateError` for two different mistakes (setting a result twice,
//! asking for a result too early) and `CancelledError` when a cancelled future is awaited.
//! Here each mistake is its own variant, so a caller can match on it.

use std::error::Error;
use std::fmt;

/// The three states a one-shot future can end in, plus "not yet": used to say, in an
/// error, where the future was when it was misused.
///
/// asyncio keeps three states (`PENDING`, `CANCELLED`, `FINISHED`); its `FINISHED`
/// covers both [`Done`](Phase::Done) and [`Failed`](Phase::Failed), which are told
/// apart here so that an error can say which one the future reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nobody has set a result, an error, or cancelled it.
    Pending,
    /// `set_result` was called.
    Done,
    /// `set_error` was called.
    Failed,
    /// `cancel` was called.
    Cancelled,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Pending => "pending",
            Phase::Done => "done with a result",
            Phase::Failed => "done with an error",
            Phase::Cancelled => "cancelled",
        })
    }
}

// ANCHOR: error
/// Why a one-shot future could not do what was asked, or how it ended badly.
///
/// `E` is the producer's own error type, the counterpart of the exception passed to
/// asyncio's `set_exception`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FutureError<E> {
    /// A `set_result` or `set_error` on a future already settled (asyncio's
    /// `InvalidStateError`): a one-shot future settles once. `attempted` names the
    /// refused call; `phase` is where the future already was.
    InvalidState {
        /// The call that was refused, such as `"set_result"`.
        attempted: &'static str,
        /// The phase the future had already reached.
        phase: Phase,
    },
    /// `result()` was asked for while the future was still pending.
    NotDone,
    /// The future was cancelled (asyncio's `CancelledError`).
    Cancelled,
    /// The producer finished with an error (asyncio's `set_exception`).
    Failed(E),
}
// ANCHOR_END: error

impl<E: fmt::Display> fmt::Display for FutureError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FutureError::InvalidState { attempted, phase } => write!(
                f,
                "invalid state: cannot {attempted} on a future that is already {phase}"
            ),
            FutureError::NotDone => f.write_str("the result is not set yet: the future is pending"),
            FutureError::Cancelled => f.write_str("the future was cancelled"),
            FutureError::Failed(error) => write!(f, "the future failed: {error}"),
        }
    }
}

impl<E: Error + 'static> Error for FutureError<E> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            FutureError::Failed(error) => Some(error),
            _ => None,
        }
    }
}
