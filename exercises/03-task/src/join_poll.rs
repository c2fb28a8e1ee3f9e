//! The two halves of the join protocol that move a result: the task writing it
//! ([`JoinCell::poll_task`] and [`JoinCell::complete`]) and the handle reading it.
#![allow(unused_variables, unused_imports)]

use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{JoinCell, JoinError, JoinHandle, JoinState, panic_message};

impl<T> JoinCell<T> {
    /// Polls the task's future once, catching a panic. When it is ready (or panicked),
    /// writes the result to this cell with [`complete`](Self::complete) and returns
    /// `Ready(())`.
    pub fn poll_task<F>(&self, future: Pin<&mut F>, cx: &mut Context<'_>) -> Poll<()>
    where
        F: Future<Output = T>,
    {
        todo!(
            "stage 3, exercise 2: poll the future inside catch_unwind and complete the \
             cell with its output or its panic — see chapter 3.3"
        )
    }
}

impl<T> JoinCell<T> {
    /// Stores the task's result and wakes whoever awaits the handle.
    ///
    /// If the handle is already gone (the state is `Detached`), nobody will ever read
    /// the result: a panic goes to the exception handler ("exception was never
    /// retrieved"), an output is dropped. The joiner is woken, and the output dropped,
    /// with no borrow of the cell held.
    pub fn complete(&self, result: Result<T, JoinError>) {
        todo!(
            "stage 3, exercise 2: store the result and wake the joiner, or report an \
             unretrieved panic — see chapter 3.3"
        )
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    /// `Ready` with the result once the task finished; otherwise remembers the waker
    /// (replacing an old one unless it would wake the same task) and returns `Pending`.
    /// A replaced waker is dropped with the cell released: its drop is user code.
    ///
    /// # Panics
    ///
    /// If polled again after it returned `Ready` (the result was moved out).
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!(
            "stage 3, exercise 2: take the result if it is there, else remember the \
             waker — see chapter 3.3"
        )
    }
}
