//! The ready queue: asyncio's `_ready` deque.
//!
//! First in, first out, like `collections.deque` with `append` and `popleft`. Every
//! method takes a short borrow and returns before any handle runs, so the queue can be
//! passed around as `&ReadyQueue` (drivers push to it from inside `park`) and pushed to
//! from inside running callbacks.

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::Handle;

// ANCHOR: ready_queue
/// The handles that will run in the next run phase, oldest first.
#[derive(Debug, Default)]
pub struct ReadyQueue {
    handles: RefCell<VecDeque<Handle>>,
}

impl ReadyQueue {
    /// Appends a handle at the back (asyncio's `_ready.append`).
    pub fn push(&self, handle: Handle) {
        self.handles.borrow_mut().push_back(handle);
    }

    /// Takes the oldest handle (asyncio's `_ready.popleft`).
    pub fn pop(&self) -> Option<Handle> {
        self.handles.borrow_mut().pop_front()
    }

    /// How many handles are queued.
    pub fn len(&self) -> usize {
        self.handles.borrow().len()
    }
}
// ANCHOR_END: ready_queue

impl ReadyQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no handle is queued.
    pub fn is_empty(&self) -> bool {
        self.handles.borrow().is_empty()
    }

    /// The labels of the queued handles, oldest first (for a stepper's snapshot).
    pub fn labels(&self) -> Vec<String> {
        self.handles
            .borrow()
            .iter()
            .map(|handle| handle.label().to_string())
            .collect()
    }

    /// Takes every queued handle out (at close). The caller drops them with no borrow
    /// held: dropping a callback drops what it captured, which is user code.
    pub fn drain(&self) -> Vec<Handle> {
        self.handles.borrow_mut().drain(..).collect()
    }
}
