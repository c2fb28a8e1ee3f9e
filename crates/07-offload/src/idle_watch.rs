//! The live handles, counted, and the last one's drop while the loop sleeps on them.
//!
//! A [`LoopHandle`] held by another thread keeps the loop from reporting a stall: the
//! thread may still call. So the driver counts live handles among its registrations,
//! and a loop with nothing else to wait for sleeps in `epoll_wait` with no timeout. If
//! the thread then drops its handle without calling, nothing writes the eventfd, and
//! the loop would sleep for ever instead of reporting the stall it now has.
//!
//! The fix is the lost-wakeup rule once more, with the roles turned round: each side
//! announces, then looks at the other's announcement.
//!
//! | who | announces | then looks at |
//! |---|---|---|
//! | the loop, before an idle park that only handles keep waiting | `idle = true` | the handle count: none left, though its stall check saw one? then it parks with a zero timeout |
//! | the thread whose drop takes the count to zero | `handles -= 1` | `idle`: set, with nothing in the inbox? then it wakes the loop |
//!
//! Each side announces, then passes a `SeqCst` fence, then looks. Two such fences
//! fall in one order, so whichever side comes second sees the first's announcement.
//! (The four accesses are `SeqCst` as well, which is enough in Rust's memory model;
//! the fences are the form that loom checks: it treats `SeqCst` loads and stores as
//! acquire and release, under which both looks could miss, and it checks fences as
//! they are.) Either the loop sees no handle left and does not sleep, or
//! the dropper sees `idle` and writes the eventfd. Either way the next turn's stall
//! check runs with the count at zero and reports `Stalled`.
//!
//! What the stall check saw is remembered as the most handles any count saw since the
//! last park, not as the last count: a layer above may count its registrations again
//! between the stall check and this park, after the drop, and a last count of zero
//! would then say "nothing was dropped" and let the loop sleep for ever. The most
//! since the last park is at least what the stall check saw. At worst it is higher (a
//! callback counted a handle that was gone by the stall check), and the loop takes one
//! spare turn.
//!
//! The dropper stays quiet when the inbox holds an item: that item's own wake ends the
//! park, and the loop clears `idle` before it takes the inbox, so its next check sees
//! the drop. This is what keeps a `to_thread` job, which queues its result and then
//! drops its handle, to one eventfd write.
//!
//! [`LoopHandle`]: crate::LoopHandle

// Under `--cfg loom` the count and the flag are loom's, so that the model in
// `tests/loom.rs` explores every order of a drop against the loop's idle park.
#[cfg(loom)]
use loom::sync::atomic::{AtomicBool, AtomicUsize, fence};
use std::sync::atomic::Ordering;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicBool, AtomicUsize, fence};

use crate::inbox::Remote;

/// The count of live handles and the loop's announcement that it sleeps on them,
/// shared by `Arc` between the layer and every handle.
#[derive(Debug, Default)]
pub(crate) struct IdleWatch {
    handles: AtomicUsize,
    idle: AtomicBool,
}

impl IdleWatch {
    /// A new handle: one more thread that may call.
    pub(crate) fn handle_made(&self) {
        // The count only grows from a handle that exists (a clone) or on the loop's
        // own thread: no reader needs this store ordered.
        self.handles.fetch_add(1, Ordering::Relaxed);
    }

    /// A handle on `remote`'s loop dropped: the last one wakes a loop asleep on the
    /// handles alone.
    pub(crate) fn handle_dropped(&self, remote: &Remote) {
        let was = self.handles.fetch_sub(1, Ordering::SeqCst);
        if was != 1 {
            return;
        }
        // Between the announcement (the count) and the look (the flag): see the top.
        fence(Ordering::SeqCst);
        if self.idle.load(Ordering::SeqCst) && remote.pending() == 0 {
            remote.unparker.unpark();
        }
    }

    /// How many handles are alive. A thread calls before it drops its handle, so a
    /// read that sees a handle gone then sees its call in the inbox's count.
    pub(crate) fn handles(&self) -> usize {
        self.handles.load(Ordering::SeqCst)
    }

    /// Before an idle park that only the handles keep waiting: announces it, then
    /// says whether the park may sleep. It may while a handle is left (the last one's
    /// drop will see the announcement), or when the counts since the last park,
    /// `most_counted` at most, saw none (the loop waits on something else).
    pub(crate) fn begin_idle_park(&self, most_counted: usize) -> bool {
        self.announce_idle();
        self.handles() > 0 || most_counted == 0
    }

    /// The loop's announcement that it sleeps on the handles alone, fenced from the
    /// look that follows it.
    pub(crate) fn announce_idle(&self) {
        self.idle.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// After that park, before the inbox is taken.
    pub(crate) fn end_idle_park(&self) {
        self.idle.store(false, Ordering::SeqCst);
    }
}
