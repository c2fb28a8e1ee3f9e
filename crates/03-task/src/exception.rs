//! Where failures nobody looked at are reported.
//!
//! asyncio stores a task's exception in the task. If the task is garbage-collected and
//! nobody ever called `result()` or `exception()`, it logs "Task exception was never
//! retrieved" through the loop's exception handler. oneloop does the same for a task
//! that panicked: if its [`JoinHandle`](crate::JoinHandle) is dropped without being
//! awaited, the panic is reported here instead of vanishing.
//!
//! The handler is settable. The default one writes one line to stderr, deliberately:
//! it is the last resort for an error no code asked for, as asyncio's default handler
//! logs. Tests install one that records the reports.
//!
//! A handler is user code, and user code may panic. asyncio's `call_exception_handler`
//! catches whatever a custom handler raises and hands both the new error and the
//! original report to the default handler. oneloop does the same: a panicking handler
//! never unwinds into the loop; the default handler writes the handler's panic
//! ([`HANDLER_PANICKED`]) and then the report it was given.

use std::cell::RefCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use crate::done::Deferrer;
use crate::{Label, panic_message};

/// The message given with a task's panic that nobody retrieved.
pub const NEVER_RETRIEVED: &str = "exception was never retrieved";

/// The message given with a panic of the exception handler itself.
pub const HANDLER_PANICKED: &str = "unhandled error in exception handler";

/// One failure that no code handled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExceptionReport {
    /// What happened, such as [`NEVER_RETRIEVED`].
    pub message: String,
    /// The task or callback that failed.
    pub label: Label,
    /// The panic's own message.
    pub panic: String,
}

/// `message (label): panic`, or `message (label)` when there is no panic to show (a
/// report that is not about a panic, such as a server's note about a client).
impl fmt::Display for ExceptionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.label)?;
        if !self.panic.is_empty() {
            write!(f, ": {}", self.panic)?;
        }
        Ok(())
    }
}

/// A function that receives reports.
pub type ExceptionHandler = Rc<dyn Fn(&ExceptionReport)>;

/// The settable exception handler of one executor, shared with its tasks' join cells.
pub struct ExceptionSink {
    handler: RefCell<ExceptionHandler>,
    /// Where done callbacks go (see [`ExceptionSink::defer`]); `None` runs them at once.
    pub(crate) deferrer: RefCell<Option<Deferrer>>,
}

impl fmt::Debug for ExceptionSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ExceptionSink { .. }")
    }
}

impl Default for ExceptionSink {
    fn default() -> Self {
        Self {
            handler: RefCell::new(Rc::new(write_to_stderr)),
            deferrer: RefCell::new(None),
        }
    }
}

impl ExceptionSink {
    /// A sink with the default handler (one line on stderr per report).
    pub fn new() -> Rc<Self> {
        Rc::new(Self::default())
    }

    /// Replaces the handler.
    pub fn set_handler(&self, handler: impl Fn(&ExceptionReport) + 'static) {
        let old = self.handler.replace(Rc::new(handler));
        // The old handler (user code, with its captures) is dropped with no borrow held.
        drop(old);
    }

    /// Hands `report` to the handler. The handler is user code, so it runs with no
    /// borrow held: it may even replace itself. If it panics, the panic is caught and
    /// the default handler writes it ([`HANDLER_PANICKED`], with the report's label),
    /// then the original report: nothing unwinds out of here.
    pub fn report(&self, report: &ExceptionReport) {
        let handler = Rc::clone(&self.handler.borrow());
        let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| handler(report))) else {
            return;
        };
        write_to_stderr(&ExceptionReport {
            message: HANDLER_PANICKED.to_owned(),
            label: report.label.clone(),
            panic: panic_message(payload),
        });
        write_to_stderr(report);
    }
}

/// The default handler: the report on one line of stderr, as [`default_line`] writes it.
pub fn write_to_stderr(report: &ExceptionReport) {
    eprintln!("{}", default_line(report));
}

/// The line the default handler writes for `report`: `oneloop: message (label): panic`.
/// Every report has this one form, whatever layer made it.
pub fn default_line(report: &ExceptionReport) -> String {
    format!("oneloop: {report}")
}
