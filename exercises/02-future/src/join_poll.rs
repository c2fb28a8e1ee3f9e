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

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!(
            "stage 2, exercise 4: project, poll each side not done yet, resolve when both are — see chapter 2.5"
        )
    }
}
