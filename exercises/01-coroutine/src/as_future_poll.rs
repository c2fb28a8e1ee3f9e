//! Exercise 3: `poll` is `resume` with a `Context`.
#![allow(unused_variables, unused_imports)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::as_future::AsFuture;
use crate::protocol::{CoError, Coroutine, Step};

impl<C> Future for AsFuture<C>
where
    C: Coroutine<Input = Waker> + Unpin,
{
    type Output = Result<C::Return, C::Error>;

    /// Resumes the coroutine once, sending it this poll's waker.
    ///
    /// # Panics
    ///
    /// When polled again after it returned `Ready` (the coroutine reports
    /// [`CoError::ResumedAfterCompletion`]): a future polled after completion is a bug in
    /// its driver, and this panics as the future of an `async fn` does. The message must
    /// contain the words "polled after completion" (the tests look for them), as in
    /// "`AsFuture` polled after completion"; rustc's own "`async fn` resumed after
    /// completion" does not.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!(
            "stage 1, exercise 3: poll as one resume that sends the Context's waker, \
             mapping each outcome to a Poll — see chapter 1.4"
        )
    }
}
