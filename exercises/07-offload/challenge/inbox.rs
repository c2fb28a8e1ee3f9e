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
//! | the loop's driver, before parking | on the loop's thread | reads the count beside the lock: if it is not zero, it parks with a zero timeout |
//! | the loop's driver, after parking | on the loop's thread | reads the count; if it is not zero, locks the inbox, takes the whole queue (setting the count to zero), unlocks, and queues each item on the ready queue: a callback as a handle, a task wake as the task's step |
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
//! Everything shared sits under the mutex, whose unlock and next lock order a push
//! before the drain that sees it. The wake itself is a system call (an eventfd write,
//! or a thread unpark), and is never what carries the data: it only makes the loop
//! look again.
//!
//! # The count beside the lock
//!
//! Most turns find the inbox empty, and a lock round trip to learn that costs more than
//! the rest of the check. So the queue keeps its length in an atomic beside the lock
//! as well: written only under the lock (a push stores the new length, a take stores
//! zero), read by the loop without it. A read of zero lets the loop skip the lock.
//!
//! The count is a hint, never the data. A read that misses a push still in progress
//! is case 2 or 3 above: that push's wake comes after its store, so the next park that
//! may sleep returns at once, and the read after it sees the count (the wake is a
//! system call that orders the store before the park's return, as it orders the push
//! before the drain). Release stores and acquire loads make the read that sees a
//! count also see the push it counts; the items themselves are still taken under the
//! lock.
//!
//! # Where oneloop differs from asyncio
//!
//! asyncio's `call_soon_threadsafe` appends to `_ready` directly (under the GIL), so
//! the callback sits where it was appended. oneloop queues injected items after the
//! park, behind the I/O events and due timers of that park.
//!
//! [`LoopHandle`]: crate::LoopHandle
//! [`LoopHandle::call_soon_threadsafe`]: crate::LoopHandle::call_soon_threadsafe
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::collections::VecDeque;
use std::fmt;
use std::mem;
use std::sync::PoisonError;
use std::sync::atomic::Ordering;
// Under `--cfg loom` the inbox's lock and count are loom's, so that the model in
// `tests/loom.rs` explores every order in which pushes, drains and closes take them.
#[cfg(loom)]
use loom::sync::{Arc, Mutex, MutexGuard, atomic::AtomicUsize};
#[cfg(not(loom))]
use std::sync::{Arc, Mutex, MutexGuard, atomic::AtomicUsize};

use oneloop_core::hooks::{CancelFlag, Handle, RemoteWake, Unparker};
use oneloop_core::{Core, Label, TaskId};

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

/// The inbox's states.
pub(crate) enum Inbox {
    /// The loop takes work: items wait here, oldest first.
    Open(Queue),
    /// The loop closed: pushes fail with [`LOOP_CLOSED`](crate::LOOP_CLOSED).
    Closed,
}

/// The open inbox's items, oldest first, with their count kept beside the lock.
pub(crate) struct Queue {
    items: VecDeque<Injected>,
    /// The same atomic as [`Remote::queued`]: stored under the lock, read without it.
    count: Arc<AtomicUsize>,
}

/// What the loop shares with other threads: the inbox and the way to wake the loop.
pub(crate) struct Remote {
    pub(crate) inbox: Mutex<Inbox>,
    /// How many items the inbox holds, readable without the lock (see the module docs).
    queued: Arc<AtomicUsize>,
    pub(crate) unparker: Unparker,
}

impl Queue {
    /// Adds `item` at the back. Called with the inbox's lock held.
    pub(crate) fn push_back(&mut self, item: Injected) {
        todo!("stage 7, challenge: the thread-safe inbox; see chapter 7.2")
    }

    /// How many items wait.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Takes every item. Called with the inbox's lock held.
    fn take(&mut self) -> VecDeque<Injected> {
        todo!("stage 7, challenge: the thread-safe inbox; see chapter 7.2")
    }
}

impl Remote {
    pub(crate) fn new(unparker: Unparker) -> Self {
        let queued = Arc::new(AtomicUsize::new(0));
        let queue = Queue {
            items: VecDeque::new(),
            count: Arc::clone(&queued),
        };
        Self {
            inbox: Mutex::new(Inbox::Open(queue)),
            queued,
            unparker,
        }
    }

    /// Locks the inbox. No user code runs under this lock, so a poisoned lock can
    /// only come from a bug here; its data is still a valid queue.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many items wait in the inbox (zero once closed): the count beside the
    /// lock, read without taking it.
    pub(crate) fn pending(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// Whether the loop closed.
    pub(crate) fn is_closed(&self) -> bool {
        matches!(&*self.lock(), Inbox::Closed)
    }

    /// Takes the whole inbox under the lock (nothing once closed).
    pub(crate) fn take(&self) -> VecDeque<Injected> {
        todo!("stage 7, challenge: the thread-safe inbox; see chapter 7.2")
    }

    /// On the loop's thread, after a park: takes the whole inbox under the lock, then,
    /// with the lock released, queues each item on the loop. Returns how many.
    /// A count of zero skips the lock (see the module docs).
    pub(crate) fn deliver(&self, core: &Core) -> usize {
        todo!("stage 7, challenge: the thread-safe inbox; see chapter 7.2")
    }

    /// On the loop's thread, when it closes: no more pushes; what was left is dropped
    /// (after the lock is released: dropping a callback runs its captures' drops).
    pub(crate) fn close(&self) -> usize {
        let left = mem::replace(&mut *self.lock(), Inbox::Closed);
        self.queued.store(0, Ordering::Release);
        match left {
            Inbox::Open(queue) => queue.len(),
            Inbox::Closed => 0,
        }
    }
}

impl RemoteWake for Remote {
    fn wake_from_thread(&self, id: TaskId) {
        todo!("stage 7, challenge: the thread-safe inbox; see chapter 7.2")
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

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::mpsc;
    use std::thread;

    use oneloop_core::yield_now;
    use oneloop_testkit::watchdog_default;

    use crate::{Offload, new_event_loop};

    /// Another thread holds the inbox's lock for the whole test: busy turns go on only
    /// if none of them takes it (an empty inbox is read through the count alone).
    #[test]
    fn busy_turns_with_an_empty_inbox_never_take_its_lock() {
        watchdog_default(|| {
            let mut event_loop = new_event_loop().expect("epoll is available");
            for _ in 0..2 {
                drop(event_loop.spawn(async {
                    for _ in 0..1_010 {
                        yield_now().await;
                    }
                }));
            }
            // The first turn ties the layer to the loop.
            event_loop.run_once().unwrap();
            let handle = Offload::of(event_loop.core())
                .expect("the offload layer")
                .handle();
            let remote = std::sync::Arc::clone(&handle.remote);
            let (locked_tx, locked_rx) = mpsc::channel();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let holder = thread::spawn(move || {
                let _guard = remote.lock();
                locked_tx.send(()).expect("the test waits");
                // Held until the test is done (or gone).
                let _ = release_rx.recv();
            });
            locked_rx.recv().expect("the holder locks");
            for _ in 0..1_000 {
                event_loop.run_once().unwrap();
            }
            release_tx.send(()).expect("the holder waits");
            holder.join().expect("the holder does not panic");
        });
    }
}
