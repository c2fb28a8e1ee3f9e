//! A task's cell outlives its loop while a waker or a join handle points at it.

use std::future::poll_fn;
use std::sync::mpsc;
use std::task::{Poll, Waker};
use std::thread;

use oneloop_core::{EventLoop, JoinError, spawn, yield_now};
use oneloop_testkit::watchdog_default;

#[test]
fn wakers_and_a_handle_outlive_their_loop_and_free_the_cell_where_they_go() {
    // Catches a cell (or the scheduler in its header) freed with the loop while wakers
    // still point at it, and a handle that reads a freed cell after the loop is gone:
    // under valgrind, either is a read after free.
    watchdog_default(|| {
        let (sender, wakers) = mpsc::channel::<Waker>();
        let mut event_loop = EventLoop::new();
        let handle = event_loop
            .run_until_complete(async move {
                let mut sender = Some(sender);
                let child = spawn(poll_fn(move |cx| {
                    if let Some(sender) = sender.take() {
                        sender.send(cx.waker().clone()).expect("the test receives");
                    }
                    Poll::<()>::Pending
                }));
                yield_now().await;
                // In an `Option`: a handle is itself a future, and is kept, not awaited.
                Some(child)
            })
            .expect("main finishes")
            .expect("main returns the handle");
        let waker = wakers.recv().expect("the child ran its first step");
        let clone = waker.clone();
        drop(event_loop);
        assert_eq!(handle.try_take(), Some(Err(JoinError::Cancelled)));
        // On the loop's thread, with the loop gone: nothing to wake.
        clone.wake_by_ref();
        drop(handle);
        thread::spawn(move || waker.wake())
            .join()
            .expect("the waking thread does not panic");
        drop(clone);
    });
}
