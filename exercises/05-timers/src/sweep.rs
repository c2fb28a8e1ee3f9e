//! The sweep: what to do with cancelled timers at the start of a turn.
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::collections::BinaryHeap;
use std::mem;

use crate::{
    MIN_CANCELLED_TIMER_HANDLES_FRACTION, MIN_SCHEDULED_TIMER_HANDLES, Scheduled, TimerHeap,
};

impl TimerHeap {
    /// Removes cancelled timers, as step 1 of asyncio's `_run_once` does, and returns
    /// them (the caller drops them once no borrow is held).
    ///
    /// - If more than [`MIN_SCHEDULED_TIMER_HANDLES`] timers are in the heap *and* more
    ///   than [`MIN_CANCELLED_TIMER_HANDLES_FRACTION`] of them are cancelled (both
    ///   strict), rebuild the heap from the live timers alone and reset the count.
    /// - Otherwise pop cancelled timers from the head only: a cancelled timer behind a
    ///   live one stays until it reaches the head.
    ///
    /// Every removed timer is marked as no longer scheduled.
    pub fn sweep(&mut self) -> Vec<Scheduled> {
        todo!(
            "stage 5, exercise 3: rebuild without the cancelled timers when more than 100 \
             are scheduled and more than half are cancelled; else pop cancelled timers \
             from the head — see chapter 5.3"
        )
    }
}
