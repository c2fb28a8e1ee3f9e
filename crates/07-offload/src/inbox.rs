//! The injection queue: how a thread that is not the loop's hands work to the loop.
//!
//! The loop's ready queue is a `RefCell` on the loop's thread; no other thread may touch
//! it. asyncio has the same rule (only its GIL makes a `deque.append` from another
//! thread safe, and even then the loop would not notice it while it sleeps). So another
//! thread puts its work in a second queue, the **inbox**, made for sharing, and then
//! wakes the loop, which moves the inbox's content onto the ready queue itself.
//!
//! # The parts
//!
//! - `Remote` is shared by `Arc` between the loop and every [`LoopHandle`] (and every
//!   task waker, through [`RemoteWake`]). It holds the inbox under a `Mutex`, and an
//!   [`Unparker`]: for the epoll driver, a `mio::Waker`, an eventfd registered in the
//!   loop's poll. Writing it makes `epoll_wait` return; that is asyncio's
//!   `_write_to_self`, one byte sent on `_csock` so that `_ssock` turns readable.
//! - The inbox is a state: `Open` with its queue, or `Closed` once the loop closed.
//!
//! # Who touches what, and when
//!
//! | who | when | what |
//! |---|---|---|
//! | any thread ([`LoopHandle::call_soon_threadsafe`], a task waker) | any time | locks the inbox; if `Open`, pushes one item at the back; unlocks; **then** calls the unparker |
//! | the loop's driver, before parking | on the loop's thread | reads whether the inbox holds anything: if so it parks with a zero timeout |
//! | the loop's driver, after parking | on the loop's thread | locks the inbox, takes the whole queue, unlocks, and queues each item on the ready queue: a callback as a handle, a task wake as the task's step |
//! | the loop's close hook | on the loop's thread, once | locks, replaces the state with `Closed`, unlocks, drops what was left |
//!
//! No user code runs under the lock: items are pushed as values and dropped or run
//! after it is released.
//!
//! # Why no wake is lost
//!
//! The danger is the classic lost wakeup: the loop decides to sleep because it saw no
//! work, and the work arrives just after it looked. Three cases, by where the push falls
//! relative to the driver's steps:
//!
//! 1. **Before the check.** The driver sees a non-empty inbox and does not sleep at all.
//! 2. **Between the check and `epoll_wait`.** The pusher's unpark comes after its push;
//!    it writes the eventfd, and the write posts an event that waits in the epoll
//!    instance until a poll reports it (mio registers the eventfd edge-triggered, so
//!    every write posts one). So the `epoll_wait` that follows returns at once. (A thread's unpark token works the
//!    same way for `ThreadParker`.) Nothing depends on the loop being asleep yet.
//! 3. **During `epoll_wait`, or after it returned.** The write ends the sleep, or the
//!    drain that follows every park finds the item. At worst the write's event is
//!    still waiting at the next park, which then returns at once: one spare turn, no
//!    loss.
//!
//! All three rely on one order: **push under the lock, then wake**. Wake first, and the
//! loop may wake, drain an empty inbox, and go back to sleep before the push lands; the
//! item then waits for some unrelated event, perhaps for ever. The mutex gives the other
//! guarantee: a drain that takes the lock after a push's unlock sees that push, and the
//! per-thread order of pushes is the order of the queue, so the calls of one thread run
//! in the order they were made.
//!
//! There are no atomics to justify here: everything shared sits under the mutex, whose
//! unlock and next lock order a push before the drain that sees it. The wake itself is
//! a system call (an eventfd write, or a thread unpark), and is never what carries the
//! data: it only makes the loop take the lock again.
//!
//! # Where oneloop differs from asyncio
//!
//! asyncio's `call_soon_threadsafe` appends to `_ready` directly (under the GIL), so
//! the callback sits where it was appended. oneloop queues injected items after the
//! park, behind the I/O events and due timers of that park.
//!
//! [`LoopHandle`]: crate::LoopHandle
//! [`LoopHandle::call_soon_threadsafe`]: crate::LoopHandle::call_soon_threadsafe

use std::collections::VecDeque;
use std::fmt;
use std::mem;
use std::sync::PoisonError;
// Under `--cfg loom` the inbox's lock is loom's, so that the model in `tests/loom.rs`
// explores every order in which pushes, drains and closes can take it.
#[cfg(loom)]
use loom::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
use std::sync::{Mutex, MutexGuard};

use oneloop_core::{CancelFlag, Core, Handle, Label, RemoteWake, TaskId, Unparker};

/// One piece of work handed over by another thread.
pub(crate) enum Injected {
    /// A task waker fired on another thread: queue the task's step.
    Task(TaskId),
    /// `call_soon_threadsafe`: queue this callback.
    Callback {
        label: &'static str,
        callback: Box<dyn FnOnce() + Send>,
    },
}

// ANCHOR: inbox
/// The inbox's states.
pub(crate) enum Inbox {
    /// The loop takes work: items wait here, oldest first.
    Open(VecDeque<Injected>),
    /// The loop closed: pushes fail with [`LOOP_CLOSED`](crate::LOOP_CLOSED).
    Closed,
}

/// What the loop shares with other threads: the inbox and the way to wake the loop.
pub(crate) struct Remote {
    pub(crate) inbox: Mutex<Inbox>,
    pub(crate) unparker: Unparker,
}
// ANCHOR_END: inbox

impl Remote {
    pub(crate) fn new(unparker: Unparker) -> Self {
        Self {
            inbox: Mutex::new(Inbox::Open(VecDeque::new())),
            unparker,
        }
    }

    /// Locks the inbox. No user code runs under this lock, so a poisoned lock can
    /// only come from a bug here; its data is still a valid queue.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many items wait in the inbox (zero once closed).
    pub(crate) fn pending(&self) -> usize {
        match &*self.lock() {
            Inbox::Open(queue) => queue.len(),
            Inbox::Closed => 0,
        }
    }

    /// Whether the loop closed.
    pub(crate) fn is_closed(&self) -> bool {
        matches!(&*self.lock(), Inbox::Closed)
    }

    // ANCHOR: deliver
    /// Takes the whole inbox under the lock (nothing once closed).
    pub(crate) fn take(&self) -> VecDeque<Injected> {
        match &mut *self.lock() {
            Inbox::Open(queue) => mem::take(queue),
            Inbox::Closed => VecDeque::new(),
        }
    }

    /// On the loop's thread, after a park: takes the whole inbox under the lock, then,
    /// with the lock released, queues each item on the loop. Returns how many.
    pub(crate) fn deliver(&self, core: &Core) -> usize {
        let batch = self.take();
        let count = batch.len();
        for item in batch {
            match item {
                Injected::Task(id) => core.wake_task(id),
                Injected::Callback { label, callback } => core.ready().push(Handle::once(
                    Label::Static(label),
                    callback,
                    CancelFlag::new(),
                )),
            }
        }
        count
    }
    // ANCHOR_END: deliver

    /// On the loop's thread, when it closes: no more pushes; what was left is dropped
    /// (after the lock is released: dropping a callback runs its captures' drops).
    pub(crate) fn close(&self) -> usize {
        let left = mem::replace(&mut *self.lock(), Inbox::Closed);
        match left {
            Inbox::Open(queue) => queue.len(),
            Inbox::Closed => 0,
        }
    }
}

impl RemoteWake for Remote {
    fn wake_from_thread(&self, id: TaskId) {
        // The only failure is a closed loop, which dropped its tasks: no step is left
        // to queue, so there is nothing to report.
        let _ = self.inject(Injected::Task(id));
    }
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remote")
            .field("pending", &self.pending())
            .field("closed", &self.is_closed())
            .finish()
    }
}
