//! The queue's bounded pair: a `put` that waits while full, a `get` that waits while
//! empty, and each waking the other side.
#![allow(unused_variables, unused_imports)]

use std::rc::Rc;
use std::task::{Context, Poll};

use crate::Queue;
use crate::error::QueueError;
use crate::wait::pending_cancel;
use crate::waiters::Waiter;

impl<T> Queue<T> {
    /// Puts `item` in without waiting: `Err(ShutDown)` after a shutdown, `Err(Full)`
    /// when full. Otherwise store it, count it unfinished (clear the `finished` event)
    /// and wake the first getter.
    pub fn put_nowait(&self, item: T) -> Result<(), QueueError> {
        todo!("stage 10, exercise 2: store the item and wake a getter — see chapter 10.3")
    }

    /// Takes the next item without waiting: `Err(ShutDown)` if shut down and empty,
    /// `Err(Empty)` if empty. Otherwise take it out and wake the first putter.
    pub fn get_nowait(&self) -> Result<T, QueueError> {
        todo!("stage 10, exercise 2: take an item and wake a putter — see chapter 10.3")
    }

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
        todo!("stage 10, exercise 2: wait while full, then put — see chapter 10.3")
    }

    /// One poll of [`get`](Queue::get), the mirror of [`poll_put`](Queue::poll_put):
    /// wait while empty (unless shut down), pass a wake on if cancelled after it, look
    /// again if passed over, and `get_nowait` once there is an item.
    pub(crate) fn poll_get(
        &self,
        slot: &mut Option<Rc<Waiter>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, QueueError>> {
        todo!("stage 10, exercise 2: wait while empty, then get — see chapter 10.3")
    }
}
