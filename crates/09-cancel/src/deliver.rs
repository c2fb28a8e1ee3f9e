//! Delivering a cancel request at a cancellation point.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::Error;
use crate::ctl::current_ctl;

// ANCHOR: deliver
/// Polls a cancellation point whose inner future is `inner`.
///
/// - If the running task (see [`current`](crate::current)) has an undelivered
///   request made before this step (`take_request` gives it), take it, drop the inner
///   future (set `inner` to `None`) and resolve `Err(Error::Cancelled(message))`: the
///   code sees the cancel at this await.
/// - Otherwise poll the inner future: `Ready(v)` resolves `Ok(v)` (drop the inner
///   future then too); `Pending` stays pending.
/// - Polled again after it resolved (`inner` is `None`): `Err(Error::Misuse(..))`.
pub fn deliver<F: Future>(
    inner: &mut Option<Pin<Box<F>>>,
    cx: &mut Context<'_>,
) -> Poll<Result<F::Output, Error>> {
    if let Some(message) = current_ctl().and_then(|task| task.take_request()) {
        *inner = None;
        return Poll::Ready(Err(Error::Cancelled(message)));
    }
    let Some(future) = inner.as_mut() else {
        return Poll::Ready(Err(Error::Misuse(
            "a cancellation point polled after it resolved",
        )));
    };
    match future.as_mut().poll(cx) {
        Poll::Pending => Poll::Pending,
        Poll::Ready(value) => {
            *inner = None;
            Poll::Ready(Ok(value))
        }
    }
}
// ANCHOR_END: deliver
