//! The two halves of the join protocol that move a result: the task writing it
//! ([`JoinCell::poll_task`] and [`JoinCell::complete`]) and the handle reading it.

use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{JoinCell, JoinError, JoinHandle, JoinState, panic_message};

// ANCHOR: joined_poll
impl<T> JoinCell<T> {
    /// Polls the task's future once, catching a panic. When it is ready (or panicked),
    /// writes the result to this cell with [`complete`](Self::complete) and returns
    /// `Ready(())`.
    pub fn poll_task<F>(&self, future: Pin<&mut F>, cx: &mut Context<'_>) -> Poll<()>
    where
        F: Future<Output = T>,
    {
        let polled = panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx)));
        let result = match polled {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(output)) => Ok(output),
            Err(payload) => Err(JoinError::Panicked {
                message: panic_message(payload),
            }),
        };
        self.complete(result);
        Poll::Ready(())
    }
}
// ANCHOR_END: joined_poll

// ANCHOR: complete
impl<T> JoinCell<T> {
    /// Stores the task's result and wakes whoever awaits the handle.
    ///
    /// If the handle is already gone (the state is `Detached`), nobody will ever read
    /// the result: a panic goes to the exception handler ("exception was never
    /// retrieved"), an output is dropped. The joiner is woken, and the output dropped,
    /// with no borrow of the cell held.
    pub fn complete(&self, result: Result<T, JoinError>) {
        if matches!(*self.state.borrow(), JoinState::Detached) {
            if let Err(error) = &result {
                self.report_unretrieved(error);
            }
            drop(result);
            return;
        }
        let previous = mem::replace(&mut *self.state.borrow_mut(), JoinState::Done(result));
        if let JoinState::Running {
            joiner: Some(joiner),
        } = previous
        {
            joiner.wake();
        }
    }
}
// ANCHOR_END: complete

// ANCHOR: handle_poll
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
        let mut state = self.cell.state.borrow_mut();
        match &mut *state {
            JoinState::Running { joiner } => {
                if joiner.as_ref().is_some_and(|old| old.will_wake(cx.waker())) {
                    return Poll::Pending;
                }
                let old = joiner.replace(cx.waker().clone());
                drop(state);
                // An old waker is dropped only now, with the cell released.
                drop(old);
                Poll::Pending
            }
            JoinState::Done(_) => match mem::replace(&mut *state, JoinState::Taken) {
                JoinState::Done(result) => Poll::Ready(result),
                _ => unreachable!("matched Done above"),
            },
            JoinState::Taken => panic!("a JoinHandle was polled after it returned its result"),
            JoinState::Detached => unreachable!("a handle detaches only when it is dropped"),
        }
    }
}
// ANCHOR_END: handle_poll
