//! The two queues Node adds on top of libuv: `process.nextTick`'s and V8's microtasks.
//!
//! libuv knows nothing of either. Node keeps the nextTick queue in JavaScript, and V8
//! keeps the microtask queue (promise reactions, `queueMicrotask`). Both are drained
//! by Node itself after every callback that comes from the loop, and after the main
//! script: never by a phase of their own. The drain rule is in `drain.rs`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;

use crate::inner::current;

/// A callback queued to run once.
pub type Job = Box<dyn FnOnce()>;

// ANCHOR: queues
/// The nextTick queue and the microtask queue, both first in, first out.
///
/// Each pop is a short borrow, so a running job may push onto either queue.
#[derive(Default)]
pub struct Queues {
    ticks: RefCell<VecDeque<Job>>,
    microtasks: RefCell<VecDeque<Job>>,
}
// ANCHOR_END: queues

impl fmt::Debug for Queues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queues")
            .field("ticks", &self.ticks.borrow().len())
            .field("microtasks", &self.microtasks.borrow().len())
            .finish()
    }
}

impl Queues {
    /// Two empty queues.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `job` at the back of the nextTick queue.
    pub fn push_tick(&self, job: Job) {
        self.ticks.borrow_mut().push_back(job);
    }

    /// Queues `job` at the back of the microtask queue.
    pub fn push_microtask(&self, job: Job) {
        self.microtasks.borrow_mut().push_back(job);
    }

    /// Takes the oldest nextTick job (the borrow ends before the job runs).
    pub fn pop_tick(&self) -> Option<Job> {
        self.ticks.borrow_mut().pop_front()
    }

    /// Takes the oldest microtask (the borrow ends before the job runs).
    pub fn pop_microtask(&self) -> Option<Job> {
        self.microtasks.borrow_mut().pop_front()
    }

    /// How many nextTick jobs wait.
    pub fn ticks_len(&self) -> usize {
        self.ticks.borrow().len()
    }

    /// How many microtasks wait.
    pub fn microtasks_len(&self) -> usize {
        self.microtasks.borrow().len()
    }

    /// Whether both queues are empty.
    pub fn is_empty(&self) -> bool {
        self.ticks.borrow().is_empty() && self.microtasks.borrow().is_empty()
    }
}

/// Node's `process.nextTick(callback)`: run `callback` as soon as the current callback
/// (or the main script) returns, before any promise reaction.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run), as every function that stands for a
/// Node global: there is no loop to queue on.
pub fn next_tick(callback: impl FnOnce() + 'static) {
    current("next_tick").queues.push_tick(Box::new(callback));
}

/// Node's `queueMicrotask(callback)`: run `callback` with the promise reactions, after
/// the nextTick queue is empty.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn queue_microtask(callback: impl FnOnce() + 'static) {
    current("queue_microtask")
        .queues
        .push_microtask(Box::new(callback));
}
