//! The drain rule: what Node does after every callback the loop runs.
#![allow(unused_variables)]

use crate::Queues;

impl Queues {
    /// Runs every queued job by Node's rule (since Node 11), and returns how many ran.
    ///
    /// - First the whole nextTick queue, including ticks queued by ticks.
    /// - Then the whole microtask queue, including microtasks queued by microtasks
    ///   (V8 drains it to the end).
    /// - A microtask may have queued a tick, and a tick a microtask: go round again
    ///   until both queues are empty.
    ///
    /// This is the shape of Node's `processTicksAndRejections` (without the rejection
    /// bookkeeping). No borrow is held while a job runs.
    pub fn drain(&self) -> usize {
        todo!(
            "stage 8, exercise 1: run the nextTick queue, then the microtask queue, \
             until both are empty; count the jobs — see chapter 8.2"
        )
    }
}
