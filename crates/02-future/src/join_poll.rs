//! How a `Join` is polled: each side that is not done yet, then both outputs at once.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::join::Join;

// ANCHOR: poll
impl<A: Future, B: Future> Future for Join<A, B> {
    type Output = (A::Output, B::Output);

    /// Polls each side that has not finished; `Ready` with both outputs once both have.
    ///
    /// # Panics
    ///
    /// When polled again after it returned `Ready`. The message must contain the words
    /// "polled after it resolved" (the tests look for them), as in "a Join was polled
    /// after it resolved".
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Pinned halves for the futures, plain `&mut` for the outputs.
        let mut this = self.project();
        assert!(!*this.finished, "a Join was polled after it resolved");
        // A finished side is never polled again: its output is already kept.
        if this.a_out.is_none() {
            *this.a_out = match this.a.as_mut().poll(cx) {
                Poll::Ready(out) => Some(out),
                Poll::Pending => None,
            };
        }
        if this.b_out.is_none() {
            *this.b_out = match this.b.as_mut().poll(cx) {
                Poll::Ready(out) => Some(out),
                Poll::Pending => None,
            };
        }
        match (this.a_out.take(), this.b_out.take()) {
            (Some(a), Some(b)) => {
                *this.finished = true;
                Poll::Ready((a, b))
            }
            (a, b) => {
                // Put back what is done. The other side returned Pending just now, so
                // it has arranged a wake: returning Pending keeps the contract.
                *this.a_out = a;
                *this.b_out = b;
                Poll::Pending
            }
        }
    }
}
// ANCHOR_END: poll
