//! Polling a `Sleep`: register a waking timer on the first poll, be ready once it fired.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{Sleep, SleepState, Timers};

// ANCHOR: sleep_poll
impl Future for Sleep {
    type Output = ();

    /// - Unpolled, zero delay: wake this task once (it goes to the back of the ready
    ///   queue) and yield; ready on the next poll, with no timer.
    /// - Unpolled: find the running loop's [`Timers`], schedule a waking timer after
    ///   `delay` (label `"sleep"`) that holds this task's waker, and wait.
    /// - Waiting: ready if the timer fired; otherwise hand it the new waker, wait.
    /// - Yielded or done: ready.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        match &this.state {
            SleepState::Unpolled { delay } if delay.is_zero() => {
                this.state = SleepState::Yielded;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            SleepState::Unpolled { delay } => {
                let timers = Timers::expect_current("sleep");
                let timer = timers.wake_later_named(*delay, "sleep", cx.waker());
                this.state = SleepState::Waiting { timer };
                Poll::Pending
            }
            SleepState::Waiting { timer } => {
                if timer.has_fired() {
                    this.state = SleepState::Done;
                    Poll::Ready(())
                } else {
                    timer.register(cx.waker());
                    Poll::Pending
                }
            }
            SleepState::Yielded | SleepState::Done => {
                this.state = SleepState::Done;
                Poll::Ready(())
            }
        }
    }
}
// ANCHOR_END: sleep_poll
