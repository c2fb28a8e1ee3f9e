//! Handles: the one kind of thing the ready queue holds.
//!
//! asyncio's `_ready` holds `Handle` objects: a callback, its arguments, a `_cancelled`
//! flag and a repr for debug output. Everything the loop runs is one of them — a task's
//! `__step`, a future's done callback, a reader's `_read_ready`. oneloop keeps that idea
//! with four kinds of callback, chosen so the common cases allocate nothing:
//!
//! - a task **step** is just a [`TaskId`]: a wake queues one with no allocation;
//! - a **one-shot** callback is a boxed `FnOnce` (what `call_soon` takes);
//! - a **shared** callback is an `Rc<dyn Fn()>`, queued again and again without a new
//!   allocation (what a persistent reader or writer will use in stage 6);
//! - a **self-cancelling** callback is an object that runs and says whether it was
//!   cancelled, as asyncio's `TimerHandle` is a `Handle` with its own `_cancelled`
//!   (what stage 5 queues its due timers as: the timer is its own handle's callback and
//!   its own cancel flag, so queuing it allocates nothing).

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use oneloop_task::{Label, TaskId};

// ANCHOR: callback
/// What a handle runs.
pub enum Callback {
    /// One step of a task (the slab's future is polled once).
    Step(TaskId),
    /// A callback that runs once (`call_soon`).
    Once(Box<dyn FnOnce()>),
    /// A callback that may be queued many times (persistent readers and writers).
    Shared(Rc<dyn Fn()>),
    /// A callback that keeps its own cancel state (a later layer's timer).
    SelfCancelling(Rc<dyn SelfCancelling>),
}

/// A callback that is its own cancel flag: its handle carries no [`CancelFlag`], and the
/// loop asks the callback itself whether to skip it.
pub trait SelfCancelling {
    /// Runs the callback: its handle's turn came and it was not cancelled.
    fn run(&self);
    /// Whether it was cancelled since it was queued: then the loop skips it.
    fn is_cancelled(&self) -> bool;
    /// The kind its handle shows in reports ([`Handle::kind`]): `"Handle"` unless the
    /// callback says otherwise (stage 5's timers say `"TimerHandle"`).
    fn kind(&self) -> &'static str {
        "Handle"
    }
}
// ANCHOR_END: callback

impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Callback::Step(id) => write!(f, "Step({id})"),
            Callback::Once(_) => f.write_str("Once(..)"),
            Callback::Shared(_) => f.write_str("Shared(..)"),
            Callback::SelfCancelling(_) => f.write_str("SelfCancelling(..)"),
        }
    }
}

/// A cancel flag shared between a queued handle and whoever may cancel it.
///
/// `call_soon` returns one as a [`CallbackHandle`]. A task step carries none: a step is
/// cancelled by removing its task, after which its id is stale and the step does nothing.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Rc<Cell<bool>>);

impl CancelFlag {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the flag: the handles carrying it will not run.
    pub fn cancel(&self) {
        self.0.set(true);
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.0.get()
    }
}

// ANCHOR: handle
/// One entry of the ready queue: a callback, its label, its cancel flag. Seven words:
/// its kind is read from its callback, not kept beside it.
#[derive(Debug)]
pub struct Handle {
    pub(crate) callback: Callback,
    pub(crate) label: Label,
    pub(crate) cancel: Option<CancelFlag>,
}
// ANCHOR_END: handle

impl Handle {
    /// A step of task `id`. Allocates nothing.
    pub fn step(id: TaskId, label: Label) -> Self {
        Self {
            callback: Callback::Step(id),
            label,
            cancel: None,
        }
    }

    /// A one-shot callback, cancelled by `cancel`.
    pub fn once(label: Label, callback: Box<dyn FnOnce()>, cancel: CancelFlag) -> Self {
        Self {
            callback: Callback::Once(callback),
            label,
            cancel: Some(cancel),
        }
    }

    /// A shared callback, cancelled by `cancel`. Queuing it again clones two `Rc`s and
    /// allocates nothing.
    pub fn shared(label: Label, callback: Rc<dyn Fn()>, cancel: CancelFlag) -> Self {
        Self {
            callback: Callback::Shared(callback),
            label,
            cancel: Some(cancel),
        }
    }

    /// A callback that is its own cancel flag (see [`SelfCancelling`]). Queuing it
    /// again clones one `Rc` and allocates nothing.
    pub fn self_cancelling(label: Label, callback: Rc<dyn SelfCancelling>) -> Self {
        Self {
            callback: Callback::SelfCancelling(callback),
            label,
            cancel: None,
        }
    }

    /// The label shown in traces and snapshots.
    pub fn label(&self) -> &Label {
        &self.label
    }

    /// What this handle runs.
    pub fn callback(&self) -> &Callback {
        &self.callback
    }

    /// The kind of handle, as asyncio's `repr` names its class: `"Task"` for a step,
    /// `"Handle"` for a callback, or what a self-cancelling callback says it is
    /// ([`SelfCancelling::kind`]: stage 5's timers say `"TimerHandle"`).
    pub fn kind(&self) -> &'static str {
        match &self.callback {
            Callback::Step(_) => "Task",
            Callback::Once(_) | Callback::Shared(_) => "Handle",
            Callback::SelfCancelling(callback) => callback.kind(),
        }
    }

    /// Whether this handle was cancelled (it will be skipped).
    pub fn is_cancelled(&self) -> bool {
        match &self.callback {
            Callback::SelfCancelling(callback) => callback.is_cancelled(),
            _ => self.cancel.as_ref().is_some_and(CancelFlag::is_cancelled),
        }
    }
}

/// What `call_soon` returns: a way to cancel the callback before it runs.
///
/// Dropping it does not cancel anything (as with asyncio's `Handle`).
#[derive(Debug, Clone)]
pub struct CallbackHandle {
    flag: CancelFlag,
    label: Label,
}

impl CallbackHandle {
    pub(crate) fn new(flag: CancelFlag, label: Label) -> Self {
        Self { flag, label }
    }

    /// Cancels the callback: if it has not run yet, it never will.
    pub fn cancel(&self) {
        self.flag.cancel();
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.is_cancelled()
    }

    /// The callback's label.
    pub fn label(&self) -> &Label {
        &self.label
    }
}
