//! `yield_now`: give the thread back for one turn (asyncio's `await sleep(0)`).

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
/// In asyncio, `await sleep(0)` is a bare `yield` in the coroutine; `Task.__step` sees
/// it and calls `call_soon(self.__step)`, putting the task at the back of `_ready`. The
/// same happens here: the first poll wakes the task's own waker (which queues its step at
/// the back of the ready queue) and returns `Pending`; the second poll is ready. So each
/// `yield_now` costs exactly one turn.
pub fn yield_now() -> YieldNow {
    YieldNow::default()
}

// ANCHOR: yield_now
impl Future for YieldNow {
    type Output = ();

    /// First poll: wake this task (queue its next step) and return `Pending`.
    /// Second poll: `Ready`.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
// ANCHOR_END: yield_now
