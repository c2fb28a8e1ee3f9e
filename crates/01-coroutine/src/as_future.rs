//! An adapter: any coroutine that takes wakers as input can be polled as a `Future`.
//!
//! This file holds the type; `impl Future for AsFuture` lives in `as_future_poll.rs`,
//! the file the learner writes.

// ANCHOR: as_future
/// Runs a [`Coroutine`](crate::Coroutine) as a [`Future`](std::future::Future): each
/// `poll` is one resume, sending in the [`Waker`](std::task::Waker) of the poll's
/// `Context`.
///
/// A yield becomes `Poll::Pending` (the yielded value is dropped: `Pending` carries
/// nothing); a completion becomes `Poll::Ready(Ok(value))`; an error the coroutine
/// raised becomes `Poll::Ready(Err(error))`. As with every future, a coroutine that
/// yields must first arrange for the waker to be woken, or nobody polls it again.
#[derive(Debug)]
pub struct AsFuture<C> {
    pub(crate) coroutine: C,
}
// ANCHOR_END: as_future

impl<C> AsFuture<C> {
    /// Wraps `coroutine`; nothing runs until the first poll.
    pub fn new(coroutine: C) -> Self {
        Self { coroutine }
    }

    /// Gives the coroutine back.
    pub fn into_inner(self) -> C {
        self.coroutine
    }
}
