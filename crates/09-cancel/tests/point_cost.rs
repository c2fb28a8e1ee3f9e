//! What a cancellation point costs: one allocation when it is made (it boxes the
//! future it wraps), and, polled with no request waiting, no allocation and no extra
//! poll of the inner future.

use std::future::{Future, ready};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use oneloop_cancel::{Error, cancellable, task_future, task_searches, yield_now};
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

/// A future that is pending `n` times, waking itself each time, then ready.
struct PendingTimes(u32);

impl Future for PendingTimes {
    type Output = ();

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            return Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn a_cancellation_point_looks_its_task_up_once_not_at_every_poll() {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    let (main, task) = task_future("main", async {
        let before = task_searches();
        // One point, polled 101 times (one step each) with no request waiting.
        cancellable(PendingTimes(100)).await?;
        let searched = task_searches() - before;
        let steps = oneloop_cancel::current().expect("main runs").steps();
        Ok::<_, Error>((searched, steps))
    });
    event_loop.run_until_complete(main).expect("the loop runs");
    let (searched, steps) = task
        .try_result()
        .expect("main finished")
        .expect("main ends well");
    assert_eq!(steps, 101, "the point was polled in 101 steps");
    assert_eq!(searched, 1, "it looked the task up at its first poll only");
}
