//! The join handle: a task's result, delivered to whoever awaits it.
//!
//! An asyncio `Task` *is* a future: awaiting it gives the coroutine's return value or
//! raises its exception. A oneloop task's future lives in the slab, type-erased, so its
//! output goes somewhere shared instead: a [`JoinCell`], written once by the task and
//! read once by its [`JoinHandle`], which is itself a future.
//!
//! The cell and the task's future share one allocation, a
//! [`TaskCell`](crate::TaskCell). A step polls the future through
//! [`JoinCell::poll_task`], which catches a panic (as a Python task catches the
//! exception its coroutine raises) and writes either the output or the panic's message
//! to the cell. If the future is dropped before it finishes (an executor shut down with
//! work left), the cell gets [`JoinError::Cancelled`].

use std::cell::RefCell;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::mem;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Waker;

use crate::task_cell::spawn_cell;

use crate::done::DoneCallbacks;
use crate::{
    ExceptionReport, ExceptionSink, HandleCell, Label, NEVER_RETRIEVED, Schedule, TaskId, Tasks,
};

/// Why a task produced no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinError {
    /// The task's future panicked; the panic's message is kept.
    Panicked {
        /// The message the future panicked with.
        message: String,
    },
    /// The task was dropped before it finished (its executor shut down).
    Cancelled,
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JoinError::Panicked { message } => write!(f, "the task panicked: {message}"),
            JoinError::Cancelled => f.write_str("the task was cancelled before it finished"),
        }
    }
}

impl Error for JoinError {}

// ANCHOR: join_state
/// Where a task's result is, as seen from its join handle.
#[derive(Debug)]
pub enum JoinState<T> {
    /// The task has not finished; `joiner` is the waker of whoever awaits the handle.
    Running {
        /// The waker to wake when the result arrives.
        joiner: Option<Waker>,
    },
    /// The task finished; its result waits to be taken.
    Done(Result<T, JoinError>),
    /// The handle took the result.
    Taken,
    /// The handle was dropped before the task finished: nobody will read the result.
    Detached,
}

/// The cell a task and its join handle share.
pub struct JoinCell<T> {
    /// `Detached` once the handle is gone: a failure then goes to the exception handler.
    pub(crate) state: RefCell<JoinState<T>>,
    pub(crate) label: Label,
    pub(crate) sink: Rc<ExceptionSink>,
    /// Callbacks added with [`JoinHandle::add_done_callback`], in the order they came.
    pub(crate) done: DoneCallbacks,
}
// ANCHOR_END: join_state

impl<T> fmt::Debug for JoinCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &*self.state.borrow() {
            JoinState::Running { .. } => "Running",
            JoinState::Done(Ok(_)) => "Done(Ok)",
            JoinState::Done(Err(_)) => "Done(Err)",
            JoinState::Taken => "Taken",
            JoinState::Detached => "Detached",
        };
        f.debug_struct("JoinCell")
            .field("state", &state)
            .field("label", &self.label)
            .finish()
    }
}

impl<T> JoinCell<T> {
    fn new(label: Label, sink: Rc<ExceptionSink>) -> Self {
        Self {
            state: RefCell::new(JoinState::Running { joiner: None }),
            label,
            sink,
            done: DoneCallbacks::default(),
        }
    }

    /// Reports a failure that no handle will ever see.
    pub(crate) fn report_unretrieved(&self, error: &JoinError) {
        if let JoinError::Panicked { message } = error {
            self.sink.report(&ExceptionReport {
                message: NEVER_RETRIEVED.to_owned(),
                label: self.label.clone(),
                panic: message.clone(),
            });
        }
    }

    /// The task's future was dropped: if no result came, tell the handle the task was
    /// cancelled and wake its joiner.
    pub(crate) fn cancel(&self) {
        let joiner = {
            let mut state = self.state.borrow_mut();
            match &mut *state {
                JoinState::Running { joiner } => {
                    let joiner = joiner.take();
                    *state = JoinState::Done(Err(JoinError::Cancelled));
                    joiner
                }
                JoinState::Done(_) | JoinState::Taken | JoinState::Detached => None,
            }
        };
        if let Some(joiner) = joiner {
            joiner.wake();
        }
    }
}

// ANCHOR: join_handle
/// Awaits a task's output: `Ok(output)`, or the [`JoinError`] that took its place.
///
/// Dropping the handle does not stop the task (as in asyncio, a task runs whether or
/// not anyone awaits it), but lets go of the joiner's waker it kept. If a task whose
/// handle was dropped panics, or a handle is dropped holding a panic it never returned,
/// the panic goes to the exception handler as "exception was never retrieved".
pub struct JoinHandle<T> {
    /// The task's cell; it derefs to the [`JoinCell`]. The handle cannot name the
    /// future's type, only that one is there.
    pub(crate) cell: HandleCell<T>,
    id: TaskId,
}
// ANCHOR_END: join_handle

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id)
            .field("cell", &self.cell)
            .finish()
    }
}

impl<T> JoinHandle<T> {
    /// The id of the task.
    pub fn id(&self) -> TaskId {
        self.id
    }

    /// The task's label.
    pub fn label(&self) -> &Label {
        &self.cell.label
    }

    /// Whether the task's result is waiting (or was already taken).
    pub fn is_finished(&self) -> bool {
        !matches!(
            &*self.cell.state.borrow(),
            JoinState::Running { .. } | JoinState::Detached
        )
    }

    /// Takes the result without awaiting, if the task finished. Used by executors'
    /// `block_on` and `run_until_complete`, which are not futures.
    pub fn try_take(&self) -> Option<Result<T, JoinError>> {
        let mut state = self.cell.state.borrow_mut();
        match &*state {
            JoinState::Done(_) => match mem::replace(&mut *state, JoinState::Taken) {
                JoinState::Done(result) => Some(result),
                _ => unreachable!("matched Done above"),
            },
            JoinState::Running { .. } | JoinState::Taken | JoinState::Detached => None,
        }
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        // While a done callback waits, the outcome has a reader: it is not unread.
        let watched = self.cell.done.waiting();
        // Nobody can await this handle any more: let go of the joiner's waker, so that
        // an executor counting the wakers held elsewhere does not wait for this one.
        let (joiner, unretrieved) = {
            let mut state = self.cell.state.borrow_mut();
            match &mut *state {
                JoinState::Running { joiner } => {
                    let joiner = joiner.take();
                    if !watched {
                        *state = JoinState::Detached;
                    }
                    (joiner, None)
                }
                JoinState::Done(Err(error)) => (None, Some(error.clone())),
                JoinState::Done(Ok(_)) | JoinState::Taken | JoinState::Detached => (None, None),
            }
        };
        // Both are dropped or reported with the cell released.
        drop(joiner);
        if let Some(error) = unretrieved {
            self.cell.report_unretrieved(&error);
        }
    }
}

// ANCHOR: spawn_into
/// Makes `future` a task, puts it in `tasks`, and returns its id and join handle.
/// The task is not scheduled: the caller queues its first step.
///
/// The task's cell and its future are one allocation; the slab and the handle each
/// hold a pointer to it.
pub fn spawn_into<S, F>(
    tasks: &RefCell<Tasks<S>>,
    sink: &Rc<ExceptionSink>,
    future: F,
    label: Option<Label>,
) -> (TaskId, JoinHandle<F::Output>)
where
    S: Schedule,
    F: Future + 'static,
{
    let id = tasks.borrow().vacant_id();
    let label = label.unwrap_or(Label::Task(id));
    let scheduler = Arc::clone(tasks.borrow().scheduler());
    let join = JoinCell::new(label, Rc::clone(sink));
    let (task, cell) = spawn_cell(id, scheduler, join, future);
    let inserted = tasks.borrow_mut().insert_task(task);
    debug_assert_eq!(inserted, id, "insert_task uses the slot vacant_id named");
    (id, JoinHandle { cell, id })
}
// ANCHOR_END: spawn_into
