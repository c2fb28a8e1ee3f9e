//! The readiness future's `poll`: register on first poll, take the event once.
#![allow(unused_variables, unused_imports)]

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::Io;
use crate::readiness::{Readiness, ReadinessState, polled_after_ready};

impl Future for Readiness {
    type Output = io::Result<()>;

    /// - First poll: find the loop's [`Io`] (`Io::current()`), take a fresh waiter id
    ///   (`io.next_waiter_id()`), park the waker with `io.wait(..)` and return
    ///   `Pending`. A failure to register is returned as the future's error.
    /// - Later polls: if `io.take_ready(..)` says the event came for this id, the
    ///   future is done: `Ready(Ok(()))`. Otherwise the poll was spurious (another
    ///   future of the same task woke it): park the new waker again and stay `Pending`.
    /// - After `Ready`, polling again is an error, not a panic.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        todo!(
            "stage 6, exercise 2: register on the first poll, take the readiness once, \
             re-park the waker on a spurious poll — see chapter 6.3"
        )
    }
}
