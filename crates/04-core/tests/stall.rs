//! A loop that nothing could wake: `run_until_complete` returns `Stalled`, not a hang.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use oneloop_core::{EventLoop, LoopError};
use oneloop_testkit::watchdog_default;

/// Pending for ever, holding no waker, and counting its polls.
struct NeverWoken(usize);

impl Future for NeverWoken {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        self.0 += 1;
        Poll::Pending
    }
}

#[test]
fn run_until_complete_of_a_future_nothing_can_wake_returns_stalled() {
    // The watchdog turns a hang into a failure.
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        assert_eq!(
            event_loop.run_until_complete(NeverWoken(0)),
            Err(LoopError::Stalled)
        );
        // Main's first step ran in turn 1; turn 2 had nothing to run and stalled.
        assert_eq!(event_loop.turn(), 2);
        assert_eq!(
            event_loop.live_tasks(),
            1,
            "main is left pending, not dropped"
        );
    });
}
