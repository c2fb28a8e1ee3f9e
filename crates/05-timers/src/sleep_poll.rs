//! Polling a `Sleep`: register the timer on the first poll, be ready once it fired.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::{Sleep, SleepState, Timers, Wakeup};

// ANCHOR: sleep_poll
impl Future for Sleep {
    type Output = ();

    /// - Unpolled, zero delay: wake this task once (it goes to the back of the ready
    ///   queue) and yield; ready on the next poll, with no timer.
    /// - Unpolled: find the running loop's [`Timers`], schedule a timer after `delay`
    ///   (label `"sleep"`) whose callback fires a fresh [`Wakeup`], and wait.
    /// - Waiting: ready if the wakeup fired; otherwise remember the new waker, wait.
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
                let wakeup = Wakeup::new(cx.waker());
                let fire = Rc::clone(&wakeup);
                let timer = timers.call_later_named(*delay, "sleep", move || fire.fire());
                this.state = SleepState::Waiting { timer, wakeup };
                Poll::Pending
            }
            SleepState::Waiting { wakeup, .. } => {
                if wakeup.has_fired() {
                    this.state = SleepState::Done;
                    Poll::Ready(())
                } else {
                    wakeup.register(cx.waker());
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
