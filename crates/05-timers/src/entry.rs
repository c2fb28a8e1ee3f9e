//! One timer: what the heap orders and what `call_later` hands back.
//!
//! asyncio's `TimerHandle` is both at once: the heap holds it, the caller holds it, and
//! `cancel()` sets its `_cancelled` flag and, while it is still in `_scheduled`, bumps
//! the loop's `_timer_cancelled_count`. oneloop splits it in two: the shared
//! [`TimerEntry`] (callback, deadline, flags) and the caller's [`TimerHandle`].
//!
//! Every field that changes is a `Cell`: no borrow can be held across user code, so a
//! cancel from anywhere on the loop's thread (a `Drop` included) never meets a borrowed
//! entry.

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;
use std::task::Waker;
use std::time::Duration;

use oneloop_core::Label;
use oneloop_core::hooks::SelfCancelling;

/// A timer's id: its sequence number, unique in its heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub(crate) u64);

impl fmt::Display for TimerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timer {}", self.0)
    }
}

// ANCHOR: action
/// What a timer does when its handle runs.
#[derive(Default)]
pub(crate) enum TimerAction {
    /// Call a callback (`call_later`, `call_at`).
    Call(Box<dyn FnOnce()>),
    /// Mark the timer fired and wake a task (`sleep`). Nothing is boxed: the waker is
    /// the task's own, and the entry is the sleep's whole shared state.
    Wake(Waker),
    /// Nothing left to do: the timer ran, was cancelled, or the loop closed.
    #[default]
    Gone,
}
// ANCHOR_END: action

// ANCHOR: entry
/// The state of one timer, shared by the heap and the [`TimerHandle`].
pub struct TimerEntry {
    /// The sequence number, given in scheduling order: the heap's tie-breaker.
    pub(crate) id: TimerId,
    /// The deadline in nanoseconds on the loop's clock (the heap's key, see
    /// [`Scheduled`](crate::Scheduled)).
    pub(crate) when: u64,
    /// The label: a static name in place, any other label boxed.
    pub(crate) label: LabelSlot,
    /// The heap's count of cancelled timers (asyncio's `_timer_cancelled_count`).
    pub(crate) cancelled_count: Rc<Cell<usize>>,
    pub(crate) action: Cell<TimerAction>,
    /// The four flags below, in one byte.
    pub(crate) flags: Cell<u8>,
}

/// Set by [`TimerHandle::cancel`] (asyncio's `_cancelled`): the timer will not run.
pub(crate) const CANCELLED: u8 = 1;
/// In the heap (asyncio's `TimerHandle._scheduled`): only then does a cancel count.
pub(crate) const SCHEDULED: u8 = 2;
/// Set when the handle of a `Wake` timer ran: the sleep is over.
pub(crate) const FIRED: u8 = 4;
/// The action is a `Wake` (read without taking the action out).
pub(crate) const WAKING: u8 = 8;
// ANCHOR_END: entry

/// Where an entry keeps its label: a static name (what every timer of oneloop's own
/// layers is given) in two words, with no allocation; a label built at run time, or a
/// task's, in a box.
pub(crate) enum LabelSlot {
    Static(&'static str),
    Boxed(Box<Label>),
}

impl LabelSlot {
    fn new(label: Label) -> Self {
        match label {
            Label::Static(name) => LabelSlot::Static(name),
            label => LabelSlot::Boxed(Box::new(label)),
        }
    }

    fn get(&self) -> Label {
        match self {
            LabelSlot::Static(name) => Label::Static(name),
            LabelSlot::Boxed(label) => Label::clone(label),
        }
    }
}

impl TimerEntry {
    /// A timer's state, its flags as given.
    pub(crate) fn new(
        id: TimerId,
        when: u64,
        label: Label,
        flags: u8,
        cancelled_count: Rc<Cell<usize>>,
        action: TimerAction,
    ) -> Self {
        Self {
            id,
            when,
            label: LabelSlot::new(label),
            cancelled_count,
            action: Cell::new(action),
            flags: Cell::new(flags),
        }
    }

    /// Whether all of `flag` is set.
    pub(crate) fn is(&self, flag: u8) -> bool {
        self.flags.get() & flag == flag
    }

    /// Sets `flag`, and says whether it was set already.
    pub(crate) fn set(&self, flag: u8) -> bool {
        let was = self.is(flag);
        self.flags.set(self.flags.get() | flag);
        was
    }

    /// Clears `flag`.
    pub(crate) fn clear(&self, flag: u8) {
        self.flags.set(self.flags.get() & !flag);
    }

    /// Whether [`TimerHandle::cancel`] was called.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.is(CANCELLED)
    }

    /// The label (a copy: cloning a label never allocates).
    pub(crate) fn label(&self) -> Label {
        self.label.get()
    }

    /// The deadline.
    pub(crate) fn when(&self) -> Duration {
        Duration::from_nanos(self.when)
    }

    /// Takes the action out, leaving [`TimerAction::Gone`]. The caller drops or runs
    /// it with no borrow held.
    pub(crate) fn take_action(&self) -> TimerAction {
        self.action.take()
    }
}

// ANCHOR: entry_runs
/// A due timer is its own handle's callback and cancel flag, as asyncio's
/// `TimerHandle` is a `Handle`: the ready queue holds the entry's `Rc`, a cancel sets
/// the flag the loop reads before it runs the handle, and queuing it allocates nothing.
impl SelfCancelling for TimerEntry {
    /// Its handle runs. A `Wake` timer is marked fired and wakes its task; a `Call`
    /// timer runs its callback. The action is taken out first, so the entry holds
    /// nothing while user code runs.
    fn run(&self) {
        let action = self.take_action();
        if self.is(WAKING) {
            self.set(FIRED);
        }
        match action {
            TimerAction::Wake(waker) => waker.wake(),
            TimerAction::Call(callback) => callback(),
            TimerAction::Gone => {}
        }
    }

    fn is_cancelled(&self) -> bool {
        self.is(CANCELLED)
    }

    /// As asyncio names the class of a timer's handle.
    fn kind(&self) -> &'static str {
        "TimerHandle"
    }
}
// ANCHOR_END: entry_runs

impl fmt::Debug for TimerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerEntry")
            .field("id", &self.id)
            .field("when", &self.when())
            .field("label", &self.label())
            .field("cancelled", &self.is(CANCELLED))
            .field("scheduled", &self.is(SCHEDULED))
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
        // Came due with its handle not run yet: the loop reads this flag and skips it.
        if entry.set(CANCELLED) {
            return;
        }
        if entry.is(SCHEDULED) {
            entry.cancelled_count.set(entry.cancelled_count.get() + 1);
        }
        let action = entry.take_action();
        drop(action);
    }
}
// ANCHOR_END: cancel

impl TimerHandle {
    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.entry.is_cancelled()
    }

    /// The deadline, on the loop's clock (asyncio's `TimerHandle.when()`), in whole
    /// nanoseconds: a deadline past 584 years reads as the last nanosecond of that span.
    pub fn when(&self) -> Duration {
        self.entry.when()
    }

    /// The timer's id.
    pub fn id(&self) -> TimerId {
        self.entry.id
    }

    /// The timer's label.
    pub fn label(&self) -> Label {
        self.entry.label()
    }

    /// Whether the handle of this timer ran a wake: true once a sleep's timer fired.
    /// (A callback timer is never marked: its callback says what it did.)
    pub fn has_fired(&self) -> bool {
        self.entry.is(FIRED)
    }

    /// Makes a waking timer (one made by [`Timers::wake_at_named`]) wake `waker`
    /// instead of the waker it holds, unless both wake the same task. Does nothing to
    /// a callback timer, or to one that fired or was cancelled.
    ///
    /// [`Timers::wake_at_named`]: crate::Timers::wake_at_named
    pub fn register(&self, waker: &Waker) {
        let action = self.entry.take_action();
        let (action, old) = match action {
            TimerAction::Wake(old) if !old.will_wake(waker) => {
                (TimerAction::Wake(waker.clone()), Some(old))
            }
            action => (action, None),
        };
        self.entry.action.set(action);
        // The old waker is dropped with its replacement in place.
        drop(old);
    }

    /// Whether the timer is still in the heap (not yet due, or cancelled and not yet
    /// swept).
    pub fn is_scheduled(&self) -> bool {
        self.entry.is(SCHEDULED)
    }
}
