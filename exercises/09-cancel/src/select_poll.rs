//! One poll of a two-way select.
#![allow(unused_variables, unused_imports)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{LoserFate, Selected};

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
    todo!(
        "stage 9, exercise 4: poll first then second; drop the loser before returning \
         the winner — see chapter 9.5"
    )
}
