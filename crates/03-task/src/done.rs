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

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use crate::{ExceptionSink, JoinCell, JoinError, JoinHandle, JoinState, Label};

/// What an executor does with a callback that is due: run it now, or queue it.
pub(crate) type Deferrer = Rc<dyn Fn(Label, Box<dyn FnOnce()>)>;

/// One done callback: told whether the task finished with an output, or why not.
type DoneCallback = Box<dyn FnOnce(Result<(), JoinError>)>;

/// The done callbacks of one task, waiting for it to finish.
///
/// Most tasks never get one, so the list is boxed and absent until the first comes:
/// a task without callbacks pays one pointer in its join cell, not an empty `Vec`'s
/// three words and a borrow flag. The list is only ever moved in and out of its
/// `Cell` whole, so no borrow of it is held while anything else runs.
#[derive(Default)]
pub(crate) struct DoneCallbacks {
    /// `Some` only while at least one callback waits. Boxed on purpose: the point is
    /// one word in every join cell, and the extra allocation only for a task that gets
    /// a callback.
    #[allow(clippy::box_collection)]
    waiting: Cell<Option<Box<Vec<DoneCallback>>>>,
}

impl DoneCallbacks {
    /// Whether a callback waits for the task.
    pub(crate) fn waiting(&self) -> bool {
        let list = self.waiting.take();
        let waiting = list.is_some();
        self.waiting.set(list);
        waiting
    }

    /// How many callbacks wait.
    fn len(&self) -> usize {
        let list = self.waiting.take();
        let len = list.as_ref().map_or(0, |list| list.len());
        self.waiting.set(list);
        len
    }

    /// Adds a callback at the end of the list.
    fn push(&self, callback: DoneCallback) {
        let mut list = self.waiting.take().unwrap_or_default();
        list.push(callback);
        self.waiting.set(Some(list));
    }

    /// Takes every waiting callback out, oldest first.
    fn take(&self) -> Vec<DoneCallback> {
        self.waiting.take().map(|list| *list).unwrap_or_default()
    }
}

impl fmt::Debug for DoneCallbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let waiting = self.len();
        f.debug_struct("DoneCallbacks")
            .field("waiting", &waiting)
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
            // `Running` or `Detached` here: the task finished after its handle was
            // dropped, and its output was dropped unread.
            JoinState::Done(Ok(_))
            | JoinState::Taken
            | JoinState::Running { .. }
            | JoinState::Detached => Ok(()),
        }
    }

    /// Hands every waiting callback to the executor, once the task's future is gone.
    pub(crate) fn fire_done_callbacks(&self) {
        let callbacks = self.done.take();
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
        self.cell.done.push(Box::new(callback));
    }
}
// ANCHOR_END: add_done_callback
