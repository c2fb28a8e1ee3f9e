//! A two-way select inside one task: the loser is dropped.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::select_poll::poll_select;

/// What happened to the side that did not win.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoserFate<L> {
    /// Dropped unfinished, with whatever it held (Rust's cancel).
    Dropped,
    /// Cancelled and awaited: what it ended with (asyncio's way; it may have ignored
    /// the cancel and finished).
    Cancelled(L),
}

/// The outcome of a two-way select: who won, with its output, and the loser's fate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selected<A, B> {
    /// The first future finished first (or both were ready: the first is polled first).
    First(A, LoserFate<B>),
    /// The second future finished first.
    Second(B, LoserFate<A>),
}

/// The future of [`select`].
#[derive(Debug)]
pub struct Select<A, B> {
    first: Option<Pin<Box<A>>>,
    second: Option<Pin<Box<B>>>,
}

/// Polls `first` and `second` in the current task until one finishes; the other is
/// dropped then, in the same poll. Biased: `first` is polled first.
pub fn select<A: Future, B: Future>(first: A, second: B) -> Select<A, B> {
    Select {
        first: Some(Box::pin(first)),
        second: Some(Box::pin(second)),
    }
}

impl<A: Future, B: Future> Future for Select<A, B> {
    type Output = Selected<A::Output, B::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        poll_select(&mut this.first, &mut this.second, cx)
    }
}
