//! The sweep: what to do with cancelled timers at the start of a turn.

use std::collections::BinaryHeap;
use std::mem;

use crate::{
    MIN_CANCELLED_TIMER_HANDLES_FRACTION, MIN_SCHEDULED_TIMER_HANDLES, Scheduled, TimerHeap,
};

// ANCHOR: sweep
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
        let len = self.len();
        let cancelled = self.cancelled();
        let many = len > MIN_SCHEDULED_TIMER_HANDLES;
        let mostly_cancelled =
            cancelled as f64 / len.max(1) as f64 > MIN_CANCELLED_TIMER_HANDLES_FRACTION;
        if many && mostly_cancelled {
            let (gone, live): (Vec<_>, Vec<_>) = mem::take(&mut self.entries)
                .into_vec()
                .into_iter()
                .partition(Scheduled::is_cancelled);
            self.entries = BinaryHeap::from(live);
            for timer in &gone {
                timer.unschedule();
            }
            self.cancelled.set(0);
            return gone;
        }
        let mut gone = Vec::new();
        while self.peek().is_some_and(Scheduled::is_cancelled) {
            gone.extend(self.pop());
        }
        gone
    }
}
// ANCHOR_END: sweep
