//! What wakes a task awaiting stage 4's `gather`: every child that finishes.

use std::cell::Cell;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::rc::Rc;

use oneloop_core::{EventLoop, gather, yield_now};
use oneloop_testkit::watchdog_default;

/// Three children that end in three turns wake the awaiting task after each: it polls
/// the gather four times, where asyncio's awaiting task runs twice (it waits, then
/// resumes after the last child).
#[test]
fn children_ending_in_different_turns_wake_the_gathering_task_after_each() {
    let polls = watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let polls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&polls);
        let outputs = event_loop
            .run_until_complete(async move {
                let mut all = pin!(gather((1..=3).map(|yields| async move {
                    for _ in 0..yields {
                        yield_now().await;
                    }
                    yields
                })));
                poll_fn(|cx| {
                    counted.set(counted.get() + 1);
                    all.as_mut().poll(cx)
                })
                .await
            })
            .expect("main finishes");
        assert_eq!(outputs, Ok(vec![1, 2, 3]));
        polls.get()
    });
    assert_eq!(polls, 4);
}
