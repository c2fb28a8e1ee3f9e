//! What can go wrong when adding or removing a signal handler.

use std::fmt;
use std::io;

use crate::signal_name;

/// Why a signal handler could not be added or removed.
#[derive(Debug)]
pub enum SignalError {
    /// The signal can never be handled on the loop: `SIGKILL` and `SIGSTOP` are never
    /// delivered to a handler, and after `SIGSEGV`, `SIGILL` or `SIGFPE` the thread
    /// cannot go on.
    Forbidden(i32),
    /// Not a signal number this system has.
    Invalid(i32),
    /// Called with no loop running on this thread: the callback would have no loop to
    /// run on.
    NoRunningLoop,
    /// The running loop has no I/O layer (stage 6) whose selector could wake it.
    NoIoLayer,
    /// The OS refused the socket pair or the registration.
    Io(io::Error),
}

impl fmt::Display for SignalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignalError::Forbidden(signal) => {
                let name = signal_name(*signal);
                if matches!(name.as_str(), "SIGKILL" | "SIGSTOP") {
                    write!(
                        f,
                        "{name} cannot be handled: the kernel never delivers it to a handler"
                    )
                } else {
                    write!(
                        f,
                        "{name} cannot be handled on the loop: the thread that caused it cannot go on"
                    )
                }
            }
            SignalError::Invalid(signal) => write!(f, "{signal} is not a signal number"),
            SignalError::NoRunningLoop => write!(
                f,
                "no event loop is running on this thread: add a signal handler from a task \
                 or callback of the loop that should run it"
            ),
            SignalError::NoIoLayer => write!(
                f,
                "the running loop has no I/O layer: signal handlers need a selector (stage 6) \
                 to wake the loop"
            ),
            SignalError::Io(error) => write!(f, "signal registration failed: {error}"),
        }
    }
}

impl std::error::Error for SignalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SignalError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for SignalError {
    fn from(error: io::Error) -> Self {
        SignalError::Io(error)
    }
}
