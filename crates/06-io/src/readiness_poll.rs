//! The readiness future's `poll`: register on first poll, take the event once.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::Io;
use crate::readiness::{Readiness, ReadinessState, polled_after_ready};

// ANCHOR: readiness_poll
impl Future for Readiness {
    type Output = io::Result<()>;

    /// - First poll: find the loop's [`Io`] (`Io::current()`), take a fresh waiter id
    ///   (`io.next_waiter_id()`), park the waker with `io.wait(..)` and return
    ///   `Pending`. A failure to register is returned as the future's error.
    /// - Later polls: if `io.take_ready(..)` says the event came for this id, the
    ///   future is done: `Ready(Ok(()))`. Otherwise the poll was spurious (another
    ///   future of the same task woke it): park the new waker again and stay `Pending`.
    /// - After `Ready`, polling again is an error, not a panic.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match &this.state {
            ReadinessState::Unpolled => {
                let io = Io::current()?;
                let id = io.next_waiter_id();
                io.wait(this.fd, this.direction, id, cx.waker())?;
                this.state = ReadinessState::Waiting { io, id };
                Poll::Pending
            }
            ReadinessState::Waiting { io, id } => {
                if io.take_ready(this.fd, this.direction, *id) {
                    this.state = ReadinessState::Done;
                    return Poll::Ready(Ok(()));
                }
                io.wait(this.fd, this.direction, *id, cx.waker())?;
                Poll::Pending
            }
            ReadinessState::Done => Poll::Ready(Err(polled_after_ready())),
        }
    }
}
// ANCHOR_END: readiness_poll
