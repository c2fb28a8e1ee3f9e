//! Where a wake finds its loop: a wake from the loop's own turn finds it current and
//! searches nothing; only a wake from elsewhere on the thread (another loop's turn)
//! searches the thread's registry of loops.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::{Poll, Waker};

use oneloop_core::hooks::registry_searches;
use oneloop_core::{EventLoop, spawn, yield_now};
use oneloop_testkit::watchdog_default;

const WAKES: usize = 1_000;

#[test]
fn a_wake_from_the_loops_own_turn_searches_no_registry() {
    let searched = watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        event_loop
            .run_until_complete(async {
                let before = registry_searches();
                // Each yield wakes the task's own waker inside its step; the other task
                // is woken by this one's waker calls too.
                let other = spawn(async {
                    for _ in 0..WAKES {
                        yield_now().await;
                    }
                });
                for _ in 0..WAKES {
                    yield_now().await;
                }
                other.await.expect("no panic");
                registry_searches() - before
            })
            .expect("the loop runs")
    });
    assert_eq!(
        searched, 0,
        "{searched} registry searches for {WAKES} wakes"
    );
}

#[test]
fn a_wake_from_another_loops_turn_searches_the_registry_once() {
    let (searched, woken) = watchdog_default(|| {
        let mut first = EventLoop::new();
        let parked: Rc<RefCell<Option<Waker>>> = Rc::default();
        let store = Rc::clone(&parked);
        let task = first.spawn_named(
            "waits",
            poll_fn(move |cx| {
                if store.borrow().is_some() {
                    return Poll::Ready(());
                }
                *store.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }),
        );
        first
            .run_once()
            .expect("one turn: the task parks its waker");
        let waker = parked.borrow().clone().expect("the task ran");
        let mut second = EventLoop::new();
        let searched = second
            .run_until_complete(async move {
                let before = registry_searches();
                // The first loop's waker, called in the second loop's turn.
                waker.wake_by_ref();
                registry_searches() - before
            })
            .expect("the second loop runs");
        let woken = first.run_until_complete(task).is_ok();
        (searched, woken)
    });
    assert_eq!(searched, 1, "one search finds the first loop");
    assert!(woken, "the first loop's task was woken and finished");
}
