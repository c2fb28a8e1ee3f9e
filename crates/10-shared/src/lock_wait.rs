//! The lock's hand-off: taking it, queueing for it, and waking the next waiter.

use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_cancel::Error;

use crate::Lock;
use crate::error::LOCK_NOT_ACQUIRED;
use crate::wait::pending_cancel;
use crate::waiters::Waiter;

impl Lock {
    // ANCHOR: poll_acquire
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
        let Some(waiter) = slot.clone() else {
            if !self.locked.get() && self.waiters.all_cancelled() {
                self.locked.set(true);
                return Poll::Ready(Ok(()));
            }
            if let Some(error) = pending_cancel(cx) {
                return Poll::Ready(Err(error));
            }
            self.bound.check()?;
            let waiter = Waiter::new(cx.waker());
            self.waiters.push(&waiter);
            *slot = Some(waiter);
            return Poll::Pending;
        };
        if let Some(error) = pending_cancel(cx) {
            self.waiters.remove(&waiter);
            *slot = None;
            if !self.locked.get() {
                self.wake_up_first();
            }
            return Poll::Ready(Err(error));
        }
        if !waiter.is_woken() && waiter.take_passed_over() && !self.locked.get() {
            self.wake_up_first();
        }
        if waiter.is_woken() {
            self.waiters.remove(&waiter);
            *slot = None;
            self.locked.set(true);
            return Poll::Ready(Ok(()));
        }
        waiter.refresh(cx.waker());
        Poll::Pending
    }
    // ANCHOR_END: poll_acquire

    // ANCHOR: release
    /// Frees the lock and wakes the first waiter. Releasing a free lock is
    /// `Err(Error::Misuse(LOCK_NOT_ACQUIRED))`, and changes nothing.
    pub fn release(&self) -> Result<(), Error> {
        if !self.locked.get() {
            return Err(Error::Misuse(LOCK_NOT_ACQUIRED));
        }
        self.locked.set(false);
        self.wake_up_first();
        Ok(())
    }

    /// Wakes the oldest waiter, unless it is already woken or cancelled: then it will
    /// run, and either take the lock or pass the wake on itself (a cancelled one is
    /// marked passed over, in case its task takes the cancel elsewhere).
    pub(crate) fn wake_up_first(&self) {
        if let Some(first) = self.waiters.first() {
            first.offer();
        }
    }
    // ANCHOR_END: release
}
