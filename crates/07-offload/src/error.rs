//! Errors of the offload layer: each says what went wrong in asyncio's words.

use std::error::Error;
use std::fmt;

/// The message of [`OffloadError::LoopClosed`] (asyncio: "Event loop is closed").
pub const LOOP_CLOSED: &str = "the event loop is closed (or gone): nothing can be scheduled \
on it from another thread";

/// The message of [`OffloadError::PoolShutDown`].
pub const POOL_SHUT_DOWN: &str = "cannot schedule new jobs after the thread pool was shut \
down (the default pool shuts down when its loop closes)";

/// The message of [`OffloadError::NoOffloadLayer`].
pub const NO_OFFLOAD_LAYER: &str = "no offload layer: this call needs a running event loop \
whose driver stack has an OffloadDriver (stage 7)";

/// Why a call of this layer failed, or why an offloaded job gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffloadError {
    /// The loop was closed or dropped: a callback for it would never run.
    LoopClosed,
    /// The thread pool was shut down: it takes no new jobs.
    PoolShutDown,
    /// A worker thread of the pool died outside any job; the pool takes no new jobs.
    PoolBroken(String),
    /// No running loop with an offload layer was found on this thread.
    NoOffloadLayer,
    /// The offloaded function panicked; this is the panic's message.
    Panicked(String),
}

impl fmt::Display for OffloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OffloadError::LoopClosed => f.write_str(LOOP_CLOSED),
            OffloadError::PoolShutDown => f.write_str(POOL_SHUT_DOWN),
            OffloadError::PoolBroken(why) => write!(f, "the thread pool is broken: {why}"),
            OffloadError::NoOffloadLayer => f.write_str(NO_OFFLOAD_LAYER),
            OffloadError::Panicked(message) => {
                write!(f, "the function run in the executor panicked: {message}")
            }
        }
    }
}

impl Error for OffloadError {}
