//! The offload layer attaches itself when its driver is installed, so a loop built by
//! hand (not through `new_event_loop` or `run`) is whole before its first turn.
//! A wake on the loop's own thread still takes stage 4's short road, not the inbox.

use oneloop_core::EventLoop;
use oneloop_offload::{Offload, new_driver};
use oneloop_testkit::watchdog_default;

#[test]
fn a_loop_built_by_hand_takes_wakes_from_other_threads_before_its_first_turn() {
    watchdog_default(|| {
        let event_loop = EventLoop::with_driver(new_driver().expect("epoll and eventfd"));
        assert!(
            event_loop.scheduler().has_remote(),
            "wakes from other threads go to the inbox from the start"
        );
    });
}

#[test]
fn a_loop_built_by_hand_and_closed_unrun_shuts_its_default_pool_down() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::with_driver(new_driver().expect("epoll and eventfd"));
        let pool = Offload::of(event_loop.core())
            .expect("the offload layer")
            .default_pool()
            .expect("the loop is open");
        assert!(pool.is_open());
        event_loop.close();
        assert!(
            !pool.is_open(),
            "closing the loop shut the default pool down"
        );
    });
}

#[test]
fn a_wake_on_the_loops_own_thread_skips_the_inbox_and_steps_the_task_next_turn() {
    use std::cell::{Cell, RefCell};
    use std::future::poll_fn;
    use std::rc::Rc;
    use std::task::{Poll, Waker};

    use oneloop_core::hooks::with_current;

    let (woken_in, pending_after_wake, resumed_in) = watchdog_default(|| {
        let mut event_loop = EventLoop::with_driver(new_driver().expect("epoll and eventfd"));
        let parked: Rc<RefCell<Option<Waker>>> = Rc::default();
        // The turn of the wake, and the inbox's length just after it.
        let seen: Rc<Cell<(u64, usize)>> = Rc::new(Cell::new((0, usize::MAX)));
        let (slot, record) = (Rc::clone(&parked), Rc::clone(&seen));
        let resumed_in = event_loop
            .run_until_complete(async move {
                let mut first = true;
                poll_fn(|cx| {
                    if !std::mem::take(&mut first) {
                        return Poll::Ready(());
                    }
                    *slot.borrow_mut() = Some(cx.waker().clone());
                    // A callback on the loop's own thread wakes the task next turn.
                    let (slot, record) = (Rc::clone(&slot), Rc::clone(&record));
                    with_current(|core| {
                        core.call_soon(move || {
                            let waker = slot.borrow_mut().take().expect("the task parked");
                            waker.wake();
                            let turn = with_current(|core| core.turn()).expect("in the loop");
                            let inbox = Offload::current().expect("the layer").pending();
                            record.set((turn, inbox));
                        })
                    })
                    .expect("in the loop");
                    Poll::Pending
                })
                .await;
                with_current(|core| core.turn()).expect("in the loop")
            })
            .expect("main finishes");
        let (woken_in, inbox) = seen.get();
        (woken_in, inbox, resumed_in)
    });
    assert_eq!(
        pending_after_wake, 0,
        "a wake on the loop's thread goes straight to the ready queue"
    );
    assert_eq!(resumed_in, woken_in + 1, "the step runs in the next turn");
}
