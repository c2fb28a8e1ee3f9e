//! The timer heap: asyncio's `_scheduled`, a min-heap of timers by deadline.
//!
//! asyncio keeps `_scheduled` as a plain list worked with `heapq`, and compares
//! `TimerHandle`s by `when`. oneloop uses std's `BinaryHeap` of [`Scheduled`] entries
//! keyed by `(when, seq)`: the sequence number, given in scheduling order, breaks ties
//! so two timers with the same deadline fire in the order they were scheduled.
//! `BinaryHeap` is a *max*-heap, so the order is reversed (see the `Ord` impl).
//!
//! The deadline sits in the heap's slot itself, as whole nanoseconds, beside the
//! entry's `Rc`: a slot is 16 bytes, four to a cache line. The sequence number is the
//! entry's id, read through the pointer only when two deadlines are equal.
//!
//! A cancelled timer is not removed (finding it would cost a linear scan); it is
//! flagged and counted, and the sweep at the start of each turn decides what to do.

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt;
use std::mem;
use std::rc::Rc;
use std::task::Waker;
use std::time::Duration;

use oneloop_core::Label;

use crate::entry::{CANCELLED, SCHEDULED, WAKING};
use crate::{TimerAction, TimerEntry, TimerHandle, TimerId};

// ANCHOR: constants
/// A heap holding at most this many timers is never rebuilt, only popped at its head
/// (asyncio's `_MIN_SCHEDULED_TIMER_HANDLES`).
pub const MIN_SCHEDULED_TIMER_HANDLES: usize = 100;

/// The rebuild happens only when more than this fraction of the heap is cancelled
/// (asyncio's `_MIN_CANCELLED_TIMER_HANDLES_FRACTION`).
pub const MIN_CANCELLED_TIMER_HANDLES_FRACTION: f64 = 0.5;
// ANCHOR_END: constants

// ANCHOR: scheduled
/// One heap entry: the timer's deadline and its shared state, whose id is the
/// sequence number (see [`seq`](Self::seq)).
#[derive(Debug)]
pub struct Scheduled {
    /// The deadline in nanoseconds on the loop's clock (see [`deadline_nanos`]).
    pub(crate) when: u64,
    pub(crate) entry: Rc<TimerEntry>,
}
// ANCHOR_END: scheduled

/// A deadline as the heap's key: whole nanoseconds, enough for 584 years of a loop's
/// clock. A later deadline is kept as the last nanosecond (ties then go by `seq`).
pub(crate) fn deadline_nanos(when: Duration) -> u64 {
    u64::try_from(when.as_nanos()).unwrap_or(u64::MAX)
}

impl Scheduled {
    /// The deadline.
    pub fn when(&self) -> Duration {
        Duration::from_nanos(self.when)
    }

    /// The sequence number: the order in which timers were scheduled.
    pub fn seq(&self) -> u64 {
        self.entry.id.0
    }

    /// The timer's label.
    pub fn label(&self) -> Label {
        self.entry.label()
    }

    /// Whether the timer was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.entry.is_cancelled()
    }

    /// Marks the timer as no longer in the heap (a later cancel is not counted).
    pub(crate) fn unschedule(&self) {
        self.entry.clear(SCHEDULED);
    }
}

// Equality agrees with the ordering: the key is `(when, seq)`, and `seq` is unique.
impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.when == other.when && self.seq() == other.seq()
    }
}

impl Eq for Scheduled {}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

// ANCHOR: heap
/// asyncio's `_scheduled` with its `_timer_cancelled_count`.
pub struct TimerHeap {
    pub(crate) entries: BinaryHeap<Scheduled>,
    pub(crate) next_seq: u64,
    /// Shared with every entry, so a cancel counts without borrowing the heap.
    pub(crate) cancelled: Rc<Cell<usize>>,
    /// Cancelled timers the due pass took out, which asyncio's count still counts.
    pub(crate) counted_but_gone: usize,
}
// ANCHOR_END: heap

impl TimerHeap {
    /// An empty heap.
    pub fn new() -> Self {
        Self {
            entries: BinaryHeap::new(),
            next_seq: 0,
            cancelled: Rc::new(Cell::new(0)),
            counted_but_gone: 0,
        }
    }

    // ANCHOR: push
    /// Schedules `callback` at `when` (asyncio's `heapq.heappush(self._scheduled, ..)`).
    pub fn push(
        &mut self,
        when: Duration,
        label: Label,
        callback: Box<dyn FnOnce()>,
    ) -> TimerHandle {
        self.push_action(when, label, TimerAction::Call(callback))
    }

    /// Schedules a wake of `waker` at `when`: a sleep's timer, with nothing boxed.
    pub fn push_wake(&mut self, when: Duration, label: Label, waker: &Waker) -> TimerHandle {
        self.push_action(when, label, TimerAction::Wake(waker.clone()))
    }

    fn push_action(&mut self, when: Duration, label: Label, action: TimerAction) -> TimerHandle {
        let seq = self.next_seq;
        self.next_seq += 1;
        let when = deadline_nanos(when);
        let kind = match action {
            TimerAction::Wake(_) => WAKING,
            _ => 0,
        };
        let entry = Rc::new(TimerEntry::new(
            TimerId(seq),
            when,
            label,
            SCHEDULED | kind,
            Rc::clone(&self.cancelled),
            action,
        ));
        self.entries.push(Scheduled {
            when,
            entry: Rc::clone(&entry),
        });
        TimerHandle { entry }
    }
    // ANCHOR_END: push

    /// The head: the earliest deadline, ties broken by scheduling order.
    pub fn peek(&self) -> Option<&Scheduled> {
        self.entries.peek()
    }

    /// Takes the head out. It is no longer scheduled; if it was cancelled, it is no
    /// longer counted either.
    pub fn pop(&mut self) -> Option<Scheduled> {
        let head = self.entries.pop()?;
        head.unschedule();
        if head.is_cancelled() {
            self.uncount(1);
        }
        Some(head)
    }

    /// Takes the head out for the due pass (step 5). It is no longer scheduled, and
    /// stays counted if it was cancelled: asyncio's due pass appends every due timer to
    /// the ready queue, cancelled or not, and only the sweep's pops lower the count.
    pub fn pop_due(&mut self) -> Option<Scheduled> {
        let head = self.entries.pop()?;
        head.unschedule();
        if head.is_cancelled() {
            self.counted_but_gone += 1;
        }
        Some(head)
    }

    /// Timers in the heap, cancelled ones included (asyncio's `len(_scheduled)`).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// asyncio's `_timer_cancelled_count`: raised by a cancel of a timer in the heap,
    /// lowered when the sweep pops a cancelled head, reset by a rebuild. Like asyncio's,
    /// it still counts the cancelled timers the due pass took out ([`pop_due`](Self::pop_due)),
    /// so it can say more than the heap holds until the count next reaches zero.
    pub fn cancelled(&self) -> usize {
        self.cancelled.get()
    }

    /// Timers in the heap that may still run.
    pub fn live(&self) -> usize {
        let in_heap = self.cancelled().saturating_sub(self.counted_but_gone);
        self.len().saturating_sub(in_heap)
    }

    /// Called after each sweep: a count of zero (a rebuild) leaves nothing counted
    /// that the due pass took out.
    pub(crate) fn settle_count(&mut self) {
        if self.cancelled() == 0 {
            self.counted_but_gone = 0;
        }
    }

    /// The earliest deadline, if any timer is in the heap.
    pub fn earliest(&self) -> Option<Duration> {
        self.peek().map(Scheduled::when)
    }

    /// Takes every timer out (at close: asyncio's `close` clears `_scheduled`). Each is
    /// marked as no longer scheduled, and the cancelled count starts again at zero.
    /// The caller drops them (and their callbacks) with no borrow held.
    pub fn clear(&mut self) -> Vec<Scheduled> {
        let gone = mem::take(&mut self.entries).into_vec();
        for timer in &gone {
            timer.unschedule();
        }
        self.cancelled.set(0);
        self.counted_but_gone = 0;
        gone
    }

    /// A handle for a timer that will never run (asked for on a closed loop): not in
    /// the heap, already cancelled, with no callback.
    pub(crate) fn refused(&mut self, when: Duration, label: Label) -> TimerHandle {
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Rc::new(TimerEntry::new(
            TimerId(seq),
            deadline_nanos(when),
            label,
            CANCELLED,
            Rc::clone(&self.cancelled),
            TimerAction::Gone,
        ));
        TimerHandle { entry }
    }

    pub(crate) fn uncount(&self, removed: usize) {
        self.cancelled.set(self.cancelled.get() - removed);
    }
}

impl Default for TimerHeap {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for TimerHeap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerHeap")
            .field("len", &self.len())
            .field("cancelled", &self.cancelled())
            .field("earliest", &self.earliest())
            .finish()
    }
}
