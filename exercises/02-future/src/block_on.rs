//! `block_on`: the smallest executor. Poll a future on this thread; between polls,
//! sleep until its waker is called.
//!
//! asyncio's nearest counterpart is `loop.run_until_complete(fut)`, but that runs a
//! whole loop; `block_on` runs one future and nothing else, with no queue at all.
//!
//! # The protocol between the waker and the parked thread
//!
//! The waker holds the blocked thread's [`Thread`] handle and a `notified` flag.
//!
//! - A wake, from any thread, sets `notified` and unparks the thread.
//! - The blocked thread, after a `Pending`, takes the flag (sets it back to false); only
//!   if it was set does it poll again. If it was not, it parks and looks again.
//!
//! `thread::park` may return without any unpark (the docs allow spurious wakeups), and
//! other code on the same thread may use park/unpark for its own purposes. The flag is
//! what says "this future's waker was called"; a return from `park` alone says nothing.
//! A wake that comes before the thread parks is not lost either: the flag stays set, and
//! the unpark token makes the next `park` return at once.
//!
//! Exercise 2: write the two `Wake` methods and `block_on`.
#![allow(unused_variables, unused_imports, dead_code)]

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// The waker behind `block_on`: which thread to unpark, and whether a wake happened.
#[derive(Debug)]
struct ThreadWaker {
    thread: Thread,
    notified: AtomicBool,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        todo!("stage 2, exercise 2: wake by value (the same as by reference) — see chapter 2.3")
    }

    fn wake_by_ref(self: &Arc<Self>) {
        todo!(
            "stage 2, exercise 2: set the notified flag, then unpark the thread — see chapter 2.3"
        )
    }
}

/// Runs `future` to completion on the calling thread and returns its output.
///
/// The future is polled once, then again only after its waker was called; in between,
/// the thread sleeps in `thread::park`. The waker is `Send + Sync`: a value set from
/// another thread wakes it.
///
/// Do not call `block_on` from inside a future that an executor is polling: it would
/// block that executor's thread (asyncio refuses the same with "This event loop is
/// already running").
pub fn block_on<F: Future>(future: F) -> F::Output {
    todo!(
        "stage 2, exercise 2: pin the future, make a ThreadWaker waker, poll, and park until notified — see chapter 2.3"
    )
}
