//! How a waiter is polled: check the state, or register a waker and say `Pending`.
//!
//! This is the poll contract in a dozen lines. asyncio's `Future.__await__` yields the
//! future to the task, which then calls `add_done_callback(task.__wakeup)`; here the
//! waiter keeps the task's waker itself, and the producer wakes it.
//!
//! Exercise 1: write `register` and `poll`. Useful pieces from `oneshot.rs`:
//! `lock(&self.shared)`, `inner.state.outcome()`, `inner.waiters` (a map from
//! `WaiterId` to `Waker`), `self.id`.
#![allow(unused_variables, unused_imports, dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::error::FutureError;
use crate::oneshot::{Inner, Wait, WaiterId, lock};

impl<T, E> Inner<T, E> {
    /// Remembers `waker` as the one to wake for waiter `id`.
    ///
    /// A waiter is often polled again by the same task with the same waker; cloning it
    /// each time would cost an atomic increment (or an allocation, for some wakers) for
    /// nothing. So the stored waker is replaced only when `will_wake` says the new one is
    /// different (the task moved to another executor, or a combinator wrapped it).
    pub(crate) fn register(&mut self, id: WaiterId, waker: &Waker) {
        todo!(
            "stage 2, exercise 1: store or replace this waiter's waker, cloning only when will_wake says it changed — see chapter 2.2"
        )
    }
}

impl<T: Clone, E: Clone> Future for Wait<T, E> {
    type Output = Result<T, FutureError<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!(
            "stage 2, exercise 1: return the outcome if settled, else register the waker and return Pending, under one lock — see chapter 2.2"
        )
    }
}
