//! Done callbacks on a join handle: asyncio's `add_done_callback`.
//!
//! A task awaiting a handle registers its waker only when its own first step runs, one
//! turn after it was spawned. A done callback registers at once, when
//! [`JoinHandle::add_done_callback`] is called, and needs no task of its own.
//!
//! The callbacks are due when the task's future is dropped: right after the step that
//! finished it, or when its executor drops it unfinished. They are handed, one by one
//! and in the order they were added, to the executor's
//! [`ExceptionSink::defer`](crate::ExceptionSink::defer). This stage's executor runs
//! each at once; the loop of stage 4 queues each as a handle (asyncio's `call_soon`), so
//! a callback runs in the turn after the task finished, as in asyncio.

use std::cell::RefCell;
use std::fmt;
use std::mem;
use std::rc::Rc;

use crate::{ExceptionSink, JoinCell, JoinError, JoinHandle, JoinState, Label};

/// What an executor does with a callback that is due: run it now, or queue it.
pub(crate) type Deferrer = Rc<dyn Fn(Label, Box<dyn FnOnce()>)>;

/// One done callback: told whether the task finished with an output, or why not.
type DoneCallback = Box<dyn FnOnce(Result<(), JoinError>)>;

/// The done callbacks of one task, waiting for it to finish.
#[derive(Default)]
pub(crate) struct DoneCallbacks {
    waiting: RefCell<Vec<DoneCallback>>,
}

impl DoneCallbacks {
    /// Whether a callback waits for the task.
    pub(crate) fn waiting(&self) -> bool {
        !self.waiting.borrow().is_empty()
    }
}

impl fmt::Debug for DoneCallbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DoneCallbacks")
            .field("waiting", &self.waiting.borrow().len())
            .finish()
    }
}

/// The label a deferred done callback runs under.
pub const DONE_CALLBACK: Label = Label::Static("done_callback");

impl<T> JoinCell<T> {
    /// The outcome a done callback is told: the output stays for the handle to take.
    fn outcome(&self) -> Result<(), JoinError> {
        match &*self.state.borrow() {
            JoinState::Done(Err(error)) => Err(error.clone()),
            // `Running` here means the task finished after its handle was dropped.
            JoinState::Done(Ok(_)) | JoinState::Taken | JoinState::Running { .. } => Ok(()),
        }
    }

    /// Hands every waiting callback to the executor, once the task's future is gone.
    pub(crate) fn fire_done_callbacks(&self) {
        let callbacks = mem::take(&mut *self.done.waiting.borrow_mut());
        if callbacks.is_empty() {
            return;
        }
        let outcome = self.outcome();
        for callback in callbacks {
            let outcome = outcome.clone();
            self.sink
                .defer(DONE_CALLBACK, Box::new(move || callback(outcome)));
        }
    }
}

impl ExceptionSink {
    /// Makes [`defer`](Self::defer) hand each callback to `deferrer` (the loop of
    /// stage 4 queues it with `call_soon`). Without one, callbacks run at once.
    pub fn set_deferrer(&self, deferrer: impl Fn(Label, Box<dyn FnOnce()>) + 'static) {
        let old = self.deferrer.replace(Some(Rc::new(deferrer)));
        drop(old);
    }

    /// Runs `callback` the executor's way: through the deferrer if one is set, else now.
    /// Nothing is borrowed while either runs.
    pub fn defer(&self, label: Label, callback: Box<dyn FnOnce()>) {
        let deferrer = self.deferrer.borrow().clone();
        match deferrer {
            Some(deferrer) => deferrer(label, callback),
            None => callback(),
        }
    }
}

// ANCHOR: add_done_callback
impl<T> JoinHandle<T> {
    /// Adds `callback`, to be called once the task is done (asyncio's
    /// `Task.add_done_callback`), with `Ok(())` if it finished with an output (which
    /// stays in the handle) or the [`JoinError`] that took its place.
    ///
    /// It registers now, not in a later step. Callbacks are handed to the executor in
    /// the order they were added; on the loop of stage 4 each runs as a handle queued
    /// when the task finished. If the task is already done, `callback` is handed over
    /// at once. While a callback waits, dropping the handle reports nothing: the
    /// callback is the outcome's reader. (A callback added after the handle took the
    /// result with [`try_take`](Self::try_take) is told `Ok(())`: the outcome is gone.)
    pub fn add_done_callback(&self, callback: impl FnOnce(Result<(), JoinError>) + 'static) {
        if self.is_finished() {
            let outcome = self.cell.outcome();
            self.cell
                .sink
                .defer(DONE_CALLBACK, Box::new(move || callback(outcome)));
            return;
        }
        self.cell.done.waiting.borrow_mut().push(Box::new(callback));
    }
}
// ANCHOR_END: add_done_callback
