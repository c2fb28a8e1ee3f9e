//! How a waiter is polled: check the state, or register a waker and say `Pending`.
//!
//! This is the poll contract in a dozen lines. asyncio's `Future.__await__` yields the
//! future to the task, which then calls `add_done_callback(task.__wakeup)`; here the
//! waiter keeps the task's waker itself, and the producer wakes it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::error::FutureError;
use crate::oneshot::{Inner, Wait, WaiterId, lock};

impl<T, E> Inner<T, E> {
    // ANCHOR: register
    /// Remembers `waker` as the one to wake for waiter `id`.
    ///
    /// A waiter is often polled again by the same task with the same waker; cloning it
    /// each time would cost an atomic increment (or an allocation, for some wakers) for
    /// nothing. So the stored waker is replaced only when `will_wake` says the new one is
    /// different (the task moved to another executor, or a combinator wrapped it).
    pub(crate) fn register(&mut self, id: WaiterId, waker: &Waker) {
        match self.waiters.get_mut(&id) {
            Some(stored) if stored.will_wake(waker) => {}
            Some(stored) => *stored = waker.clone(),
            None => {
                self.waiters.insert(id, waker.clone());
            }
        }
    }
    // ANCHOR_END: register
}

// ANCHOR: poll
impl<T: Clone, E: Clone> Future for Wait<T, E> {
    type Output = Result<T, FutureError<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // One lock for the check and the registration: a producer on another thread
        // cannot settle in between and miss this waker.
        let mut inner = lock(&self.shared);
        if let Some(outcome) = inner.state.outcome() {
            return Poll::Ready(outcome);
        }
        inner.register(self.id, cx.waker());
        Poll::Pending
    }
}
// ANCHOR_END: poll
