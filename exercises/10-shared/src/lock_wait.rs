//! The lock's hand-off: taking it, queueing for it, and waking the next waiter.
#![allow(unused_variables, unused_imports)]

use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_cancel::Error;

use crate::Lock;
use crate::error::LOCK_NOT_ACQUIRED;
use crate::wait::pending_cancel;
use crate::waiters::Waiter;

impl Lock {
    /// One poll of [`acquire`](Lock::acquire); `slot` holds this acquire's waiter once
    /// it has queued.
    ///
    /// - Not queued yet: take the lock if it is free and every queued waiter is
    ///   cancelled (none counts as all). Otherwise deliver a pending cancel, bind the
    ///   loop, queue a new waiter at the back and return `Pending`.
    /// - Queued, with a cancel to deliver: leave the queue; if the lock is free, wake
    ///   the first waiter (the wake may have been meant for this one); return the cancel.
    /// - Queued, not woken, but passed over by a wake while it looked cancelled (its
    ///   task took the cancel at another await), with the lock free: wake the first
    ///   waiter (this one, if it is first), then go on as below.
    /// - Queued and woken: leave the queue, take the lock, `Ok(())`.
    /// - Queued, not woken: keep the latest waker, `Pending`.
    pub(crate) fn poll_acquire(
        &self,
        slot: &mut Option<Rc<Waiter>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), Error>> {
        todo!(
            "stage 10, exercise 1: take a free lock nobody live waits for, or queue a \
             waiter; once woken take it, once cancelled pass the wake on — see chapter 10.1"
        )
    }

    /// Frees the lock and wakes the first waiter. Releasing a free lock is
    /// `Err(Error::Misuse(LOCK_NOT_ACQUIRED))`, and changes nothing.
    pub fn release(&self) -> Result<(), Error> {
        todo!("stage 10, exercise 1: free the lock and wake the first waiter — see chapter 10.1")
    }

    /// Wakes the oldest waiter, unless it is already woken or cancelled: then it will
    /// run, and either take the lock or pass the wake on itself (a cancelled one is
    /// marked passed over, in case its task takes the cancel elsewhere).
    pub(crate) fn wake_up_first(&self) {
        todo!("stage 10, exercise 1: offer the wake to the oldest waiter — see chapter 10.1")
    }
}
