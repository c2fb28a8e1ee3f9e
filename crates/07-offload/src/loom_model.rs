//! The inbox protocol's two sides, public only under `--cfg loom`, for the model test
//! in `tests/loom.rs`.
//!
//! Under that cfg the inbox's lock is loom's `Mutex`, so loom can run the real pushes,
//! drains and closes in every order the lock allows. Loom cannot model the eventfd
//! write that wakes `epoll_wait`, so the test hands [`Inbox::new`] an `Unparker` of its
//! own, built on loom's primitives, with the eventfd's rule: a wake that comes before
//! the park makes that park return at once.
//!
//! Everything here is the real protocol. The test builds the wrong order (wake, then
//! push) itself, from the real push and a wake of its own.

use std::collections::VecDeque;
use std::sync::Arc;

use oneloop_core::hooks::Unparker;

use crate::LoopHandle;
use crate::inbox::{Injected, Remote};

/// A loop's inbox, without the loop.
#[derive(Debug, Clone)]
pub struct Inbox {
    remote: Arc<Remote>,
}

impl Inbox {
    /// An open inbox whose pushes wake the loop with `unparker`.
    pub fn new(unparker: Unparker) -> Self {
        Self {
            remote: Arc::new(Remote::new(unparker)),
        }
    }

    /// What another thread holds: its `call_soon_threadsafe` is the real one (push
    /// under the lock, then wake).
    pub fn handle(&self) -> LoopHandle {
        LoopHandle::new(Arc::clone(&self.remote), Arc::default())
    }

    /// The driver's check before it parks: items waiting (it then parks with a zero
    /// timeout).
    pub fn pending(&self) -> usize {
        self.remote.pending()
    }

    /// The driver's drain after a park: the callbacks taken, oldest first, to run with
    /// the lock released.
    pub fn take(&self) -> VecDeque<Box<dyn FnOnce() + Send>> {
        self.remote
            .take()
            .into_iter()
            .filter_map(|item| match item {
                Injected::Callback { callback, .. } => Some(callback),
                Injected::Task(_) => None,
            })
            .collect()
    }

    /// The driver's drain as `deliver` does it: a count that reads zero skips the lock
    /// and takes nothing; otherwise [`take`](Self::take).
    pub fn drain(&self) -> VecDeque<Box<dyn FnOnce() + Send>> {
        if self.remote.pending() == 0 {
            return VecDeque::new();
        }
        self.take()
    }

    /// The loop's close: later pushes fail; returns how many items were dropped.
    pub fn close(&self) -> usize {
        self.remote.close()
    }
}
