//! `timeout`: a future with a deadline (asyncio's `wait_for` / `asyncio.timeout`).
//!
//! Each poll polls the inner future first, then the sleep: a future that finishes in
//! the same turn as its deadline wins. When the sleep wins, the inner future is
//! dropped at once — Rust's cancellation — and the caller gets [`TimedOut`].
//!
//! A zero limit gives the inner future exactly one poll. The sleep cannot stand for
//! that deadline: `sleep(ZERO)` is a bare yield, which would let the inner future run a
//! second step. asyncio's `asyncio.timeout(0)` likewise lets its body run to its first
//! suspension and no further (`wait_for(.., 0)` does not even start it).

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::{Sleep, sleep};

/// The error of a [`timeout`] whose deadline came first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut {
    /// The limit that was given.
    pub after: Duration,
}

impl fmt::Display for TimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timed out after {:.3} seconds", self.after.as_secs_f64())
    }
}

impl Error for TimedOut {}

/// The future returned by [`timeout`].
#[must_use = "a future does nothing unless awaited"]
pub struct Timeout<F> {
    /// The inner future; `None` once it finished or was dropped for timing out.
    future: Option<Pin<Box<F>>>,
    sleep: Sleep,
    after: Duration,
}

// ANCHOR: timeout
/// Runs `future` for at most `limit`: its output, or [`TimedOut`] (and the future is
/// dropped). With a zero `limit`, the future is polled once: ready then, or timed out.
pub fn timeout<F: Future>(limit: Duration, future: F) -> Timeout<F> {
    Timeout {
        future: Some(Box::pin(future)),
        sleep: sleep(limit),
        after: limit,
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, TimedOut>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let Some(future) = this.future.as_mut() else {
            panic!("a Timeout was polled after it completed");
        };
        if let Poll::Ready(output) = future.as_mut().poll(cx) {
            this.future = None;
            return Poll::Ready(Ok(output));
        }
        // A zero limit has passed by now; its sleep would only yield (see the module).
        if this.after.is_zero() || Pin::new(&mut this.sleep).poll(cx).is_ready() {
            // Dropped here, before returning: its own drops may cancel timers.
            this.future = None;
            return Poll::Ready(Err(TimedOut { after: this.after }));
        }
        Poll::Pending
    }
}
// ANCHOR_END: timeout

impl<F> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout")
            .field("after", &self.after)
            .field("running", &self.future.is_some())
            .field("sleep", &self.sleep)
            .finish()
    }
}
