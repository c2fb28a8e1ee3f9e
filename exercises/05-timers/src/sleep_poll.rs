//! Polling a `Sleep`: register a waking timer on the first poll, be ready once it fired.
#![allow(unused_variables, unused_imports, unused_mut)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{Sleep, SleepState, Timers};

impl Future for Sleep {
    type Output = ();

    /// - Unpolled, zero delay: wake this task once (it goes to the back of the ready
    ///   queue) and yield; ready on the next poll, with no timer.
    /// - Unpolled: find the running loop's [`Timers`], schedule a waking timer after
    ///   `delay` (label `"sleep"`) that holds this task's waker, and wait.
    /// - Waiting: ready if the timer fired; otherwise hand it the new waker, wait.
    /// - Yielded or done: ready.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        todo!(
            "stage 5, exercise 4: move the sleep through its states — on the first poll \
             schedule a waking timer (or yield once for a zero delay), then be ready \
             once it fired — see chapter 5.4"
        )
    }
}
