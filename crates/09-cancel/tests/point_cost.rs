//! What a cancellation point costs: one allocation when it is made (it boxes the
//! future it wraps), and, polled with no request waiting, no allocation and no extra
//! poll of the inner future.

use std::future::{Future, ready};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use oneloop_cancel::{Error, cancellable, task_future, yield_now};
use oneloop_testkit::{CountingAllocator, PollCounter};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

#[test]
fn a_cancellation_point_boxes_its_future_once_and_adds_no_poll_and_no_allocation() {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    let (main, task) = task_future("main", async {
        // Made: one allocation, the box around the inner future.
        let counter = PollCounter::new(ready(7));
        let polls = counter.count_handle();
        let (point, made) = ALLOC.count(|| cancellable(counter));
        // Polled inside a task with no request waiting.
        let mut point = pin!(point);
        let mut cx = Context::from_waker(Waker::noop());
        let (poll, polling) = ALLOC.count(|| point.as_mut().poll(&mut cx));
        yield_now().await?;
        Ok::<_, Error>((
            made,
            polling,
            polls.get(),
            matches!(poll, Poll::Ready(Ok(7))),
        ))
    });
    event_loop.run_until_complete(main).expect("the loop runs");
    let (made, polling, polls, ready_seven) = task
        .try_result()
        .expect("main finished")
        .expect("main ends well");
    assert_eq!(made, 1, "making the point boxes its future");
    assert_eq!(polling, 0, "polling it allocates nothing");
    assert_eq!(polls, 1, "the inner future was polled once");
    assert!(ready_seven, "its output came through");
}
