//! How a `Join` is polled: each side that is not done yet, then both outputs at once.
//!
//! Exercise 4: write `poll`. `self.project()` (made by `pin_project!` in `join.rs`)
//! gives `Pin<&mut A>` and `Pin<&mut B>` for the futures and `&mut` for the rest.
#![allow(unused_variables)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::join::Join;

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
        todo!(
            "stage 2, exercise 4: project, poll each side not done yet, resolve when both are — see chapter 2.6"
        )
    }
}
