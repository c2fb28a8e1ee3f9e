//! What the loop does with misuse it can report: a wake from another thread, a nested
//! run, a Node global called with no loop running.

use std::future::poll_fn;
use std::sync::mpsc;
use std::task::Poll;
use std::thread;

use oneloop_node::{Interest, NodeError, NodeLoop, once_ready, pipe, set_timeout, spawn_async};
use oneloop_testkit::watchdog_default;

#[test]
fn a_wake_from_another_thread_stops_the_loop_with_an_error_instead_of_hanging() {
    watchdog_default(|| {
        let (wakers, waker_rx) = mpsc::channel();
        let waker_thread = thread::spawn(move || {
            let waker: std::task::Waker = waker_rx.recv().expect("the task sends its waker");
            waker.wake();
        });
        let mut node = NodeLoop::new().expect("a poller");
        // Keep the loop blocked in its poll: a pipe that never becomes readable.
        let (sender, receiver) = pipe::new().expect("a pipe");
        let result = node.run(move || {
            once_ready(receiver, Interest::READABLE, |_| {}).expect("registers");
            spawn_async(poll_fn(move |cx| {
                // Only the first poll comes before the foreign wake; if the receiver is
                // gone, the waker thread has failed and its join says so.
                let _ = wakers.send(cx.waker().clone());
                Poll::<()>::Pending
            }));
        });
        waker_thread.join().expect("the waker thread ends");
        drop(sender);
        assert!(matches!(result, Err(NodeError::ForeignWake)), "{result:?}");
    });
}

#[test]
fn a_run_inside_a_run_is_refused() {
    watchdog_default(|| {
        let mut outer = NodeLoop::with_virtual_clock().expect("a poller");
        let mut inner = NodeLoop::with_virtual_clock().expect("a poller");
        let mut nested = None;
        outer
            .run(|| nested = Some(inner.run(|| {})))
            .expect("the outer run ends");
        assert!(matches!(nested, Some(Err(NodeError::AlreadyRunning))));
    });
}

#[test]
fn a_node_global_outside_a_run_panics_with_its_name() {
    watchdog_default(|| {
        let panic = thread::spawn(|| set_timeout(|| {}, 0))
            .join()
            .expect_err("no loop runs on this thread");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            message.contains("`set_timeout` was called outside NodeLoop::run"),
            "{message}"
        );
    });
}
