//! `gather`: run futures as tasks, wait for all, results in argument order.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use oneloop_task::JoinError;

use crate::{Gather, spawn};

// ANCHOR: gather
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
    let handles: Vec<_> = futures
        .into_iter()
        .map(|future| Some(spawn(future)))
        .collect();
    let remaining = handles.len();
    Gather {
        results: (0..remaining).map(|_| None).collect(),
        handles,
        remaining,
    }
}

impl<T> Future for Gather<T> {
    type Output = Result<Vec<T>, JoinError>;

    /// Polls every handle still pending, moving each result to its place; ready when
    /// none remains.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        for (slot, result) in this.handles.iter_mut().zip(this.results.iter_mut()) {
            let Some(handle) = slot else { continue };
            match Pin::new(handle).poll(cx) {
                Poll::Pending => {}
                Poll::Ready(Ok(output)) => {
                    *result = Some(output);
                    *slot = None;
                    this.remaining -= 1;
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            }
        }
        if this.remaining > 0 {
            return Poll::Pending;
        }
        let outputs = this
            .results
            .iter_mut()
            .map(|result| result.take().expect("every handle delivered its result"))
            .collect();
        Poll::Ready(Ok(outputs))
    }
}
// ANCHOR_END: gather
