//! The smallest real suspension: a future that is not ready the first time.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

// ANCHOR: yield_now
/// Returns `Pending` on its first poll (after waking its waker, so that it will be
/// polled again), and `Ready(())` on the second. Awaiting it gives the thread back
/// once: asyncio's `await asyncio.sleep(0)`.
#[derive(Debug, Default)]
#[must_use = "futures do nothing unless polled"]
pub struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        // Whoever drives us must learn that polling again is worth it.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
// ANCHOR_END: yield_now

/// A future that suspends exactly once: `yield_now().await` gives the thread back.
pub fn yield_now() -> YieldNow {
    YieldNow::default()
}
