//! What the loop does with misuse it can report: a wake from another thread, a nested
//! run, a Node global called with no loop running.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::io::Write;
use std::rc::Rc;
use std::sync::mpsc;
use std::task::{Poll, Waker};
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
fn a_foreign_wake_still_fires_the_watch_ready_in_the_same_poll_and_a_later_run_ends() {
    let (first, fired, second) = watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let fired = Rc::new(Cell::new(0));
        let counted = Rc::clone(&fired);
        let first = node.run(move || {
            let (mut sender, receiver) = pipe::new().expect("a pipe");
            once_ready(receiver, Interest::READABLE, move |_| {
                counted.set(counted.get() + 1);
            })
            .expect("registers");
            let waker: Rc<RefCell<Option<Waker>>> = Rc::default();
            let kept = Rc::clone(&waker);
            spawn_async(poll_fn(move |cx| {
                *kept.borrow_mut() = Some(cx.waker().clone());
                Poll::<()>::Pending
            }));
            // Both are ready before the poll: the eventfd first, then the pipe, so
            // the poll reports the wake ahead of the watch.
            let waker = waker.borrow_mut().take().expect("the task polled once");
            thread::spawn(move || waker.wake())
                .join()
                .expect("the waking thread ends");
            sender.write_all(b"x").expect("one byte");
        });
        let fired = fired.get();
        // Nothing is left alive: a watch lost in the failed poll would keep this run
        // waiting for ever.
        let second = node.run(|| {}).map(|report| report.iterations);
        (
            first
                .map(|report| report.iterations)
                .map_err(|e| e.to_string()),
            fired,
            second.map_err(|e| e.to_string()),
        )
    });
    assert_eq!(
        first,
        Err(NodeError::ForeignWake.to_string()),
        "the wake still ends the run"
    );
    assert_eq!(fired, 1, "the watch ready in the same poll fired");
    assert_eq!(second, Ok(0), "the next run finds nothing alive");
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
