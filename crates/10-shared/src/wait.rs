//! The one wait every primitive but the lock and the queue is made of, and the probe
//! that makes a wait a cancellation point.

use std::fmt;
use std::future::{Future, ready};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_cancel::{Error, deliver};

use crate::bind::LoopBound;
use crate::waiters::{WaitQueue, Waiter};

/// Takes the running task's undelivered cancel request, if it has one (the request
/// is then delivered: the caller must return it).
pub(crate) fn pending_cancel(cx: &mut Context<'_>) -> Option<Error> {
    // Stage 9's delivery, around a future that is already done: it answers
    // `Err(Cancelled)` exactly when a request is waiting to be delivered.
    let mut probe = Some(Box::pin(ready(())));
    match deliver(&mut probe, cx) {
        Poll::Ready(Err(error)) => Some(error),
        _ => None,
    }
}

/// Waits in `queue` until a primitive wakes this waiter; a cancellation point.
///
/// Polled again, not woken, with no cancel to deliver, but passed over by a wake while
/// it looked cancelled: `retry()` asks the primitive again; true serves the waiter
/// at once, false leaves it to the primitive to wake it (or not).
///
/// Leaving without being served (a delivered cancel, a misuse, or a drop of this
/// future) takes the waiter out of the queue and calls `on_leave(woken)`: a waiter
/// that was woken and leaves anyway must pass on what it was handed. A wait that
/// leaves at its first poll, before it queued, calls `on_leave(false)`.
pub(crate) struct Wait<'a, L: FnMut(bool), R: FnMut() -> bool> {
    queue: &'a WaitQueue,
    bound: &'a LoopBound,
    waiter: Option<Rc<Waiter>>,
    on_leave: L,
    retry: R,
}

impl<'a, L: FnMut(bool), R: FnMut() -> bool> Wait<'a, L, R> {
    pub(crate) fn new(queue: &'a WaitQueue, bound: &'a LoopBound, on_leave: L, retry: R) -> Self {
        Self {
            queue,
            bound,
            waiter: None,
            on_leave,
            retry,
        }
    }
}

impl<L: FnMut(bool), R: FnMut() -> bool> fmt::Debug for Wait<'_, L, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wait")
            .field("waiter", &self.waiter)
            .finish_non_exhaustive()
    }
}

// Every field is `Unpin`: the closures are only ever called, never pinned.
impl<L: FnMut(bool), R: FnMut() -> bool> Unpin for Wait<'_, L, R> {}

impl<L: FnMut(bool), R: FnMut() -> bool> Future for Wait<'_, L, R> {
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Some(waiter) = this.waiter.clone() else {
            // First poll: the caller found it must wait. Leaving before it queued is
            // leaving unserved too: the caller may have counted it already.
            if let Some(error) = pending_cancel(cx) {
                (this.on_leave)(false);
                return Poll::Ready(Err(error));
            }
            if let Err(error) = this.bound.check() {
                (this.on_leave)(false);
                return Poll::Ready(Err(error));
            }
            let waiter = Waiter::new(cx.waker());
            this.queue.push(&waiter);
            this.waiter = Some(waiter);
            return Poll::Pending;
        };
        if let Some(error) = pending_cancel(cx) {
            this.leave();
            return Poll::Ready(Err(error));
        }
        if !waiter.is_woken() && waiter.take_passed_over() && (this.retry)() {
            waiter.serve();
        }
        if waiter.is_woken() {
            this.queue.remove(&waiter);
            this.waiter = None;
            return Poll::Ready(Ok(()));
        }
        waiter.refresh(cx.waker());
        Poll::Pending
    }
}

impl<L: FnMut(bool), R: FnMut() -> bool> Wait<'_, L, R> {
    fn leave(&mut self) {
        if let Some(waiter) = self.waiter.take() {
            self.queue.remove(&waiter);
            (self.on_leave)(waiter.is_woken());
        }
    }
}

impl<L: FnMut(bool), R: FnMut() -> bool> Drop for Wait<'_, L, R> {
    fn drop(&mut self) {
        self.leave();
    }
}
