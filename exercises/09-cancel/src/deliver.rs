//! Delivering a cancel request at a cancellation point.
#![allow(unused_variables, unused_imports)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::Error;
use crate::ctl::current_ctl;

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
    todo!(
        "stage 9, exercise 1: take the current task's request and drop the inner future, \
         or poll the inner future — see chapter 9.2"
    )
}
