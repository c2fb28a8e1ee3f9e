//! `yield_now`: give the thread back for one turn (asyncio's `await sleep(0)`).
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The future returned by [`yield_now`].
#[derive(Debug, Default)]
#[must_use = "a future does nothing unless awaited"]
pub struct YieldNow {
    yielded: bool,
}

/// Suspends the current task once and lets every other ready handle run.
///
/// asyncio special-cases `await sleep(0)`: the coroutine yields nothing, and
/// `Task.__step`, finding no future to wait on, queues its own next step with
/// `call_soon(self.__step)`, behind everything already in `_ready`. Here the first poll
/// calls the task's own waker, which queues the step the same way, and returns
/// `Pending`; the second poll is ready. So each `yield_now` costs exactly one turn.
pub fn yield_now() -> YieldNow {
    YieldNow::default()
}

impl Future for YieldNow {
    type Output = ();

    /// First poll: wake this task (queue its next step) and return `Pending`.
    /// Second poll: `Ready`.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        todo!(
            "stage 4, exercise 4: wake your own task once and return Pending, then be \
             ready — see chapter 4.2"
        )
    }
}
