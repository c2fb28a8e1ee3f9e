//! A future wrapper that counts polls.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

/// Wraps a future and counts how many times it is polled.
///
/// The count is shared through [`PollCounter::count_handle`], so a test can keep reading
/// it after the future was moved into an executor.
#[derive(Debug)]
pub struct PollCounter<F> {
    inner: Pin<Box<F>>,
    polls: Arc<AtomicUsize>,
}

impl<F: Future> PollCounter<F> {
    /// Wraps `future`; its count starts at zero.
    pub fn new(future: F) -> Self {
        Self {
            inner: Box::pin(future),
            polls: Arc::default(),
        }
    }

    /// A handle that reads the number of polls so far.
    pub fn count_handle(&self) -> PollCount {
        PollCount(Arc::clone(&self.polls))
    }
}

impl<F: Future> Future for PollCounter<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        self.inner.as_mut().poll(cx)
    }
}

/// Reads the poll count of a [`PollCounter`].
#[derive(Debug, Clone)]
pub struct PollCount(Arc<AtomicUsize>);

impl PollCount {
    /// How many times the wrapped future has been polled.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}
