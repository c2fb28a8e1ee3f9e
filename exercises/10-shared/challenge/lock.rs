//! `Lock`: a flag and a queue of wakers.
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_cancel::Error;

use crate::bind::LoopBound;
use crate::waiters::{WaitQueue, Waiter};

/// asyncio's `Lock`: held by at most one task at a time, handed to waiters first in,
/// first out.
///
/// [`acquire`](Self::acquire) takes it at once when it is free and nobody waits;
/// otherwise the task queues a waiter and sleeps. [`release`](Self::release) frees it
/// and wakes the oldest waiter that is not cancelled; that waiter takes it when its
/// step runs, in the next turn. Until then the lock is free but not up for grabs: a
/// newcomer sees the queued waiter and queues behind it (no barging).
///
/// A lock is built on `Rc` and `Cell`: it is `!Send`, so using one from another thread
/// is a compile error, not a run-time one.
///
/// ```compile_fail
/// let lock = oneloop_shared::Lock::new();
/// std::thread::spawn(move || lock.locked());
/// ```
#[derive(Default)]
pub struct Lock {
    pub(crate) locked: Cell<bool>,
    pub(crate) waiters: WaitQueue,
    pub(crate) bound: LoopBound,
}

impl fmt::Debug for Lock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lock")
            .field("locked", &self.locked.get())
            .field("waiters", &self.waiters.len())
            .finish()
    }
}

impl Lock {
    /// A free lock.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether some task holds it.
    pub fn locked(&self) -> bool {
        self.locked.get()
    }

    /// How many tasks are queued for it (woken ones that have not run yet included).
    pub fn waiters(&self) -> usize {
        self.waiters.len()
    }

    /// Waits for the lock and takes it: `Ok(())` once held. A cancellation point while
    /// it waits (`Err(Error::Cancelled(_))`, the lock not held); a lock already waited
    /// on from another loop gives `Err(Error::Misuse(BOUND_TO_ANOTHER_LOOP))`.
    pub fn acquire(&self) -> Acquire<'_> {
        todo!("stage 10, challenge: the lock; see chapter 10.1")
    }

    /// Runs `body` holding the lock (asyncio's `async with lock:`), and releases it
    /// after, whatever `body` returned.
    ///
    /// Dropped while `body` runs (an abort, a select's loser), it releases the lock
    /// too: a drop is Rust's cancel.
    pub async fn with<T>(&self, body: impl Future<Output = T>) -> Result<T, Error> {
        todo!("stage 10, challenge: the lock; see chapter 10.1")
    }
}

/// The future of [`Lock::acquire`].
pub struct Acquire<'a> {
    pub(crate) lock: &'a Lock,
    pub(crate) waiter: Option<Rc<Waiter>>,
}

impl fmt::Debug for Acquire<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Acquire")
            .field("queued", &self.waiter.is_some())
            .finish()
    }
}

impl Future for Acquire<'_> {
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!("stage 10, challenge: the lock; see chapter 10.1")
    }
}

impl Drop for Acquire<'_> {
    /// Dropped while queued (an abort, a select's loser): leave the queue, and if the
    /// lock is free, pass the turn on, since this waiter may have been the one woken.
    fn drop(&mut self) {
        let Some(waiter) = self.waiter.take() else {
            return;
        };
        self.lock.waiters.remove(&waiter);
        // While a panic unwinds, leave the queue only: the loop is going down anyway.
        if !self.lock.locked.get() && !std::thread::panicking() {
            self.lock.wake_up_first();
        }
    }
}
