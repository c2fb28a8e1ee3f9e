//! `gather`: run futures as tasks, wait for all, results in argument order.
#![allow(unused_variables, unused_imports, dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use oneloop_task::JoinError;

use crate::{Gather, spawn};

/// Spawns every future as a task on the running loop, at once (as asyncio's `gather`
/// wraps each coroutine in a task when called), and returns a future of all their
/// outputs, in argument order. The first task to panic makes it return that error;
/// the other tasks keep running.
///
/// asyncio's `gather` hangs a done callback on every child, and the last callback sets
/// the outer future's result, which then wakes the awaiting task: two hops. Here the
/// children's join handles wake the awaiting task directly: one hop fewer.
///
/// # Panics
///
/// When no loop is running on this thread (see [`spawn`]).
pub fn gather<F, I>(futures: I) -> Gather<F::Output>
where
    F: Future + 'static,
    I: IntoIterator<Item = F>,
{
    todo!("stage 4, exercise 3: spawn every future and build the Gather — see chapter 4.4")
}

impl<T> Future for Gather<T> {
    type Output = Result<Vec<T>, JoinError>;

    /// Polls every handle still pending, moving each result to its place; ready when
    /// none remains.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!(
            "stage 4, exercise 3: poll the pending handles, keep results in argument \
             order — see chapter 4.4"
        )
    }
}
