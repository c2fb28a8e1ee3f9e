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
    ///
    /// When a burst has drained (the queue is empty and holds room for more than
    /// [`KEPT_CAPACITY`](Self::KEPT_CAPACITY) handles), the room is given back, as `collections.deque` frees
    /// its blocks while it empties: 100,000 tasks spawned at once do not leave
    /// 100,000 handles' worth of memory behind. A queue that stays below that size
    /// keeps its room, so a steady loop never allocates.
    #[inline]
    pub fn pop(&self) -> Option<Handle> {
        let mut handles = self.handles.borrow_mut();
        let handle = handles.pop_front();
        if handles.is_empty() && handles.capacity() > Self::KEPT_CAPACITY {
            handles.shrink_to(Self::KEPT_CAPACITY);
        }
        handle
    }

    /// How many handles are queued.
    #[inline]
    pub fn len(&self) -> usize {
        self.handles.borrow().len()
    }
}
// ANCHOR_END: ready_queue

impl ReadyQueue {
    /// The room (in handles) an empty queue keeps after a burst; see [`pop`](Self::pop).
    pub const KEPT_CAPACITY: usize = 1024;

    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many handles the queue has room for before it must allocate.
    pub fn capacity(&self) -> usize {
        self.handles.borrow().capacity()
    }

    /// Whether no handle is queued.
    #[inline]
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
