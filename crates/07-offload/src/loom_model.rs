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
use crate::idle_watch::IdleWatch;
use crate::inbox::{Injected, Remote};

/// A loop's inbox, without the loop, and the count of its live handles.
#[derive(Debug, Clone)]
pub struct Inbox {
    remote: Arc<Remote>,
    watch: Arc<IdleWatch>,
}

impl Inbox {
    /// An open inbox whose pushes wake the loop with `unparker`.
    pub fn new(unparker: Unparker) -> Self {
        Self {
            remote: Arc::new(Remote::new(unparker)),
            watch: Arc::default(),
        }
    }

    /// What another thread holds: its `call_soon_threadsafe` is the real one (push
    /// under the lock, then wake), and so is its drop (the last one wakes a loop that
    /// announced it sleeps on the handles alone).
    pub fn handle(&self) -> LoopHandle {
        LoopHandle::new(Arc::clone(&self.remote), Arc::clone(&self.watch))
    }

    /// The stall check's count of live handles.
    pub fn handles(&self) -> usize {
        self.watch.handles()
    }

    /// The driver's step before an idle park: announce, then look; `false` means park
    /// with a zero timeout. `most_counted` is what the counts since the last park saw.
    pub fn begin_idle_park(&self, most_counted: usize) -> bool {
        self.watch.begin_idle_park(most_counted)
    }

    /// The announcement alone, for the model of the wrong order (look, then announce).
    pub fn announce_idle(&self) {
        self.watch.announce_idle();
    }

    /// After the idle park.
    pub fn end_idle_park(&self) {
        self.watch.end_idle_park();
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
