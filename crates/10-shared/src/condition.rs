//! `Condition`: waiters that give up a lock while they wait.

use std::fmt;
use std::rc::Rc;

use oneloop_cancel::Error;

use crate::Lock;
use crate::bind::LoopBound;
use crate::error::CONDITION_NOT_LOCKED;
use crate::wait::Wait;
use crate::waiters::WaitQueue;

/// asyncio's `Condition`: a lock and a queue of waiters. [`wait`](Self::wait) releases
/// the lock, sleeps until [`notify`](Self::notify), then takes the lock back before it
/// returns, even when it was cancelled.
pub struct Condition {
    lock: Rc<Lock>,
    waiters: WaitQueue,
    bound: LoopBound,
}

impl fmt::Debug for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condition")
            .field("lock", &self.lock)
            .field("waiters", &self.waiters.len())
            .finish()
    }
}

impl Default for Condition {
    fn default() -> Self {
        Self::new()
    }
}

impl Condition {
    /// A condition with a lock of its own.
    pub fn new() -> Self {
        Self::with_lock(Rc::new(Lock::new()))
    }

    /// A condition over a lock shared with other code.
    pub fn with_lock(lock: Rc<Lock>) -> Self {
        Self {
            lock,
            waiters: WaitQueue::default(),
            bound: LoopBound::default(),
        }
    }

    /// The lock.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// Waits for the lock and takes it (see [`Lock::acquire`]).
    pub async fn acquire(&self) -> Result<(), Error> {
        self.lock.acquire().await
    }

    /// Releases the lock (see [`Lock::release`]).
    pub fn release(&self) -> Result<(), Error> {
        self.lock.release()
    }

    /// Releases the lock, waits for a notify, takes the lock back. Without the lock
    /// held: `Err(Error::Misuse(CONDITION_NOT_LOCKED))`. A cancel while it waits is
    /// returned only once the lock is held again; a cancel while it takes the lock back
    /// is returned as `Err(Error::Cancelled(None))`, as 3.11 raises a new
    /// `CancelledError` there. Dropped while waiting (an abort),
    /// it cannot take the lock back: a drop cannot await.
    pub async fn wait(&self) -> Result<(), Error> {
        if !self.lock.locked() {
            return Err(Error::Misuse(CONDITION_NOT_LOCKED));
        }
        self.lock.release()?;
        // A waiter passed over by a notify while it looked cancelled, whose task took
        // the cancel at another await, counts as notified: a condition allows a
        // spurious wake, not a lost one.
        let waited = Wait::new(&self.waiters, &self.bound, |_| {}, || true).await;
        let mut cancelled = false;
        loop {
            match self.lock.acquire().await {
                Ok(()) => break,
                Err(Error::Cancelled(_)) => cancelled = true,
                Err(other) => return Err(other),
            }
        }
        match (waited, cancelled) {
            // Cancelled while taking the lock back: asyncio raises a new cancel then,
            // with no message, in place of whatever the wait ended with.
            (_, true) => Err(Error::Cancelled(None)),
            (Err(error), false) => Err(error),
            (Ok(()), false) => Ok(()),
        }
    }

    /// Waits until `predicate` holds, checking it first and after every wake.
    pub async fn wait_for(&self, mut predicate: impl FnMut() -> bool) -> Result<(), Error> {
        while !predicate() {
            self.wait().await?;
        }
        Ok(())
    }

    /// Wakes up to `n` waiters that are not already woken or cancelled. Needs the lock.
    pub fn notify(&self, n: usize) -> Result<(), Error> {
        if !self.lock.locked() {
            return Err(Error::Misuse(CONDITION_NOT_LOCKED));
        }
        let mut woken = 0;
        for waiter in self.waiters.snapshot() {
            if woken >= n {
                break;
            }
            if waiter.offer() {
                woken += 1;
            }
        }
        Ok(())
    }

    /// Wakes every waiter. Needs the lock.
    pub fn notify_all(&self) -> Result<(), Error> {
        self.notify(self.waiters.len())
    }
}
