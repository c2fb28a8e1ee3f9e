//! One timer: what the heap orders and what `call_later` hands back.
//!
//! asyncio's `TimerHandle` is both at once: the heap holds it, the caller holds it, and
//! `cancel()` sets its `_cancelled` flag and, while it is still in `_scheduled`, bumps
//! the loop's `_timer_cancelled_count`. oneloop splits it in two: the shared
//! [`TimerEntry`] (callback, deadline, flags) and the caller's [`TimerHandle`].

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::Label;
use oneloop_core::hooks::CancelFlag;

/// A timer's id: its sequence number, unique in its heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub(crate) u64);

impl fmt::Display for TimerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timer {}", self.0)
    }
}

// ANCHOR: entry
/// The state of one timer, shared by the heap and the [`TimerHandle`].
pub struct TimerEntry {
    pub(crate) id: TimerId,
    pub(crate) when: Duration,
    pub(crate) label: Label,
    /// Shared with the handle pushed on the ready queue, so a cancel after the timer
    /// came due still stops it (asyncio checks `_cancelled` before running a handle).
    pub(crate) cancel: CancelFlag,
    /// In the heap (asyncio's `TimerHandle._scheduled`): only then does a cancel count.
    pub(crate) scheduled: Cell<bool>,
    /// The heap's count of cancelled timers (asyncio's `_timer_cancelled_count`).
    pub(crate) cancelled_count: Rc<Cell<usize>>,
    pub(crate) callback: RefCell<Option<Box<dyn FnOnce()>>>,
}
// ANCHOR_END: entry

impl fmt::Debug for TimerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerEntry")
            .field("id", &self.id)
            .field("when", &self.when)
            .field("label", &self.label)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("scheduled", &self.scheduled.get())
            .finish_non_exhaustive()
    }
}

/// What `call_later` and `call_at` return: the way to cancel the timer.
///
/// Dropping it cancels nothing (as with asyncio's `TimerHandle`); `sleep` cancels its
/// timer from its own `Drop`.
#[derive(Debug, Clone)]
pub struct TimerHandle {
    pub(crate) entry: Rc<TimerEntry>,
}

// ANCHOR: cancel
impl TimerHandle {
    /// Cancels the timer: it will not run. It stays in the heap (lazy deletion) and is
    /// counted, so the loop's sweep can decide when rebuilding the heap pays off.
    ///
    /// Touches no `RefCell` of the loop: it may be called from anywhere on the loop's
    /// thread, a `Drop` included. The callback is dropped here, after every flag is set.
    pub fn cancel(&self) {
        let entry = &self.entry;
        if entry.cancel.is_cancelled() {
            return;
        }
        entry.cancel.cancel();
        if entry.scheduled.get() {
            entry.cancelled_count.set(entry.cancelled_count.get() + 1);
        }
        let callback = entry.callback.borrow_mut().take();
        drop(callback);
    }
}
// ANCHOR_END: cancel

impl TimerHandle {
    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.entry.cancel.is_cancelled()
    }

    /// The deadline, on the loop's clock (asyncio's `TimerHandle.when()`).
    pub fn when(&self) -> Duration {
        self.entry.when
    }

    /// The timer's id.
    pub fn id(&self) -> TimerId {
        self.entry.id
    }

    /// The timer's label.
    pub fn label(&self) -> &Label {
        &self.entry.label
    }

    /// Whether the timer is still in the heap (not yet due, or cancelled and not yet
    /// swept).
    pub fn is_scheduled(&self) -> bool {
        self.entry.scheduled.get()
    }
}
