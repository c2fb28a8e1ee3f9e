//! One poll of a two-way select.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{LoserFate, Selected};

// ANCHOR: poll_select
/// Polls `first`, then `second` (both still `Some`). The first to be ready wins: the
/// other side is dropped right here (set to `None`, so its destructors run before this
/// returns), and the result says `LoserFate::Dropped`. Neither ready: `Pending` (each
/// poll registered `cx`'s waker). Polled again after it resolved: a panic whose message
/// contains the words "polled after it resolved" (the tests look for them), as in "a
/// select was polled after it resolved".
pub fn poll_select<A: Future, B: Future>(
    first: &mut Option<Pin<Box<A>>>,
    second: &mut Option<Pin<Box<B>>>,
    cx: &mut Context<'_>,
) -> Poll<Selected<A::Output, B::Output>> {
    let (Some(a), Some(b)) = (first.as_mut(), second.as_mut()) else {
        panic!("a select was polled after it resolved");
    };
    if let Poll::Ready(value) = a.as_mut().poll(cx) {
        *second = None;
        *first = None;
        return Poll::Ready(Selected::First(value, LoserFate::Dropped));
    }
    if let Poll::Ready(value) = b.as_mut().poll(cx) {
        *first = None;
        *second = None;
        return Poll::Ready(Selected::Second(value, LoserFate::Dropped));
    }
    Poll::Pending
}
// ANCHOR_END: poll_select
