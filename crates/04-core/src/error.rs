//! Errors the loop reports instead of hanging or panicking.

use std::error::Error;
use std::fmt;

use oneloop_task::JoinError;

/// The message of [`LoopError::ForeignWake`].
pub const FOREIGN_WAKE: &str = "woken from another thread; cross-thread wakeups arrive in \
stage 7 (call_soon_threadsafe)";

/// The message of [`LoopError::AnotherLoopRunning`].
pub const ANOTHER_LOOP_RUNNING: &str = "cannot run this loop while another loop is running \
a turn on this thread";

/// Why `run_until_complete`, `run_forever` or a turn stopped without a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopError {
    /// The main future panicked (or was cancelled).
    MainFailed(JoinError),
    /// A waker of this loop was called from another thread. This stage has no way to
    /// deliver it safely, so the loop stops rather than losing it.
    ForeignWake,
    /// Nothing is ready, no driver has anything registered, and no task's waker is held
    /// anywhere: parking would last for ever.
    Stalled,
    /// `stop()` was called before the main future finished.
    StoppedBeforeComplete,
    /// The loop was closed.
    Closed,
    /// The loop was asked to run from inside a turn of another loop on the same thread
    /// (asyncio's "Cannot run the event loop while another loop is running"). Nothing
    /// was spawned and no turn ran.
    AnotherLoopRunning,
}

impl fmt::Display for LoopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoopError::MainFailed(error) => write!(f, "the main future failed: {error}"),
            LoopError::ForeignWake => f.write_str(FOREIGN_WAKE),
            LoopError::Stalled => f.write_str(
                "the loop stalled: nothing is ready, no driver has anything registered, \
                 and no waker is held anywhere, so parking would last for ever",
            ),
            LoopError::StoppedBeforeComplete => {
                f.write_str("the loop was stopped before the future completed")
            }
            LoopError::Closed => f.write_str("the loop is closed"),
            LoopError::AnotherLoopRunning => f.write_str(ANOTHER_LOOP_RUNNING),
        }
    }
}

impl Error for LoopError {}
