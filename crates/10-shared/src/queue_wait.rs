//! The queue's bounded pair: a `put` that waits while full, a `get` that waits while
//! empty, and each waking the other side.

use std::rc::Rc;
use std::task::{Context, Poll};

use crate::Queue;
use crate::error::QueueError;
use crate::wait::pending_cancel;
use crate::waiters::Waiter;

impl<T> Queue<T> {
    // ANCHOR: nowait
    /// Puts `item` in without waiting: `Err(ShutDown)` after a shutdown, `Err(Full)`
    /// when full. Otherwise store it, count it unfinished (clear the `finished` event)
    /// and wake the first getter.
    pub fn put_nowait(&self, item: T) -> Result<(), QueueError> {
        if self.shut_down.get() {
            return Err(QueueError::ShutDown);
        }
        if self.full() {
            return Err(QueueError::Full);
        }
        self.items.borrow_mut().push(item);
        self.unfinished.set(self.unfinished.get() + 1);
        self.finished.clear();
        Self::wakeup_next(&self.getters);
        Ok(())
    }

    /// Takes the next item without waiting: `Err(ShutDown)` if shut down and empty,
    /// `Err(Empty)` if empty. Otherwise take it out and wake the first putter.
    pub fn get_nowait(&self) -> Result<T, QueueError> {
        let item = self.items.borrow_mut().pop();
        match item {
            None if self.shut_down.get() => Err(QueueError::ShutDown),
            None => Err(QueueError::Empty),
            Some(item) => {
                Self::wakeup_next(&self.putters);
                Ok(item)
            }
        }
    }
    // ANCHOR_END: nowait

    // ANCHOR: poll_put
    /// One poll of [`put`](Queue::put); `item` is taken when it goes in, `slot` holds
    /// the putter's waiter while it waits.
    ///
    /// - Waiting, with a cancel to deliver: leave the putters (a `get` may have taken
    ///   this waiter out already); if it was woken and the queue is not full, wake the
    ///   next putter; return the cancel.
    /// - Waiting, not woken, and not passed over (a wake that skipped it while it
    ///   looked cancelled took it out of the putters): keep the latest waker, `Pending`.
    /// - Otherwise (first poll, woken, or passed over): after a shutdown,
    ///   `Err(ShutDown)`. While full: deliver a pending cancel, bind the loop, queue a
    ///   new putter, `Pending`. Not full: `put_nowait`.
    pub(crate) fn poll_put(
        &self,
        item: &mut Option<T>,
        slot: &mut Option<Rc<Waiter>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), QueueError>> {
        if let Some(waiter) = slot.clone() {
            if let Some(error) = pending_cancel(cx) {
                self.putters.remove(&waiter);
                *slot = None;
                if waiter.is_woken() && !self.full() {
                    Self::wakeup_next(&self.putters);
                }
                return Poll::Ready(Err(error.into()));
            }
            if !waiter.is_woken() && !waiter.take_passed_over() {
                waiter.refresh(cx.waker());
                return Poll::Pending;
            }
            self.putters.remove(&waiter);
            *slot = None;
        }
        if self.shut_down.get() {
            return Poll::Ready(Err(QueueError::ShutDown));
        }
        if self.full() {
            if let Some(error) = pending_cancel(cx) {
                return Poll::Ready(Err(error.into()));
            }
            self.bound.check()?;
            let waiter = Waiter::new(cx.waker());
            self.putters.push(&waiter);
            *slot = Some(waiter);
            return Poll::Pending;
        }
        let item = item.take().expect("a put resolves once");
        Poll::Ready(self.put_nowait(item))
    }
    // ANCHOR_END: poll_put

    // ANCHOR: poll_get
    /// One poll of [`get`](Queue::get), the mirror of [`poll_put`](Queue::poll_put):
    /// wait while empty (unless shut down), pass a wake on if cancelled after it, look
    /// again if passed over, and `get_nowait` once there is an item.
    pub(crate) fn poll_get(
        &self,
        slot: &mut Option<Rc<Waiter>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, QueueError>> {
        if let Some(waiter) = slot.clone() {
            if let Some(error) = pending_cancel(cx) {
                self.getters.remove(&waiter);
                *slot = None;
                if waiter.is_woken() && !self.is_empty() {
                    Self::wakeup_next(&self.getters);
                }
                return Poll::Ready(Err(error.into()));
            }
            if !waiter.is_woken() && !waiter.take_passed_over() {
                waiter.refresh(cx.waker());
                return Poll::Pending;
            }
            self.getters.remove(&waiter);
            *slot = None;
        }
        if self.is_empty() && !self.shut_down.get() {
            if let Some(error) = pending_cancel(cx) {
                return Poll::Ready(Err(error.into()));
            }
            self.bound.check()?;
            let waiter = Waiter::new(cx.waker());
            self.getters.push(&waiter);
            *slot = Some(waiter);
            return Poll::Pending;
        }
        Poll::Ready(self.get_nowait())
    }
    // ANCHOR_END: poll_get
}
