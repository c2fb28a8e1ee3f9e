//! `LoopHandle`: the loop as another thread sees it.

use std::fmt;
use std::sync::Arc;

use crate::idle_watch::IdleWatch;
use crate::inbox::{Injected, Remote};
use crate::{Offload, OffloadError};

// ANCHOR: loop_handle
/// A `Send + Sync` reference to a loop, for other threads: the only thing they may do
/// with it is [`call_soon_threadsafe`](Self::call_soon_threadsafe).
///
/// asyncio code passes the loop object itself to a thread and calls
/// `loop.call_soon_threadsafe(cb)` on it. A oneloop loop is not `Send`, so a thread
/// gets this handle instead. It outlives the loop safely: once the loop is closed or
/// dropped, every call fails with [`OffloadError::LoopClosed`].
pub struct LoopHandle {
    pub(crate) remote: Arc<Remote>,
    watch: Arc<IdleWatch>,
}
// ANCHOR_END: loop_handle

impl LoopHandle {
    /// A handle on `remote`'s loop, counted among the loop's registrations.
    pub(crate) fn new(remote: Arc<Remote>, watch: Arc<IdleWatch>) -> Self {
        watch.handle_made();
        Self { remote, watch }
    }

    /// The handle of the loop running on this thread.
    ///
    /// Fails with [`OffloadError::NoOffloadLayer`] outside a running loop, or on a loop
    /// whose driver stack has no [`OffloadDriver`](crate::OffloadDriver).
    pub fn current() -> Result<LoopHandle, OffloadError> {
        Ok(Offload::current()?.handle())
    }

    /// Queues `callback` to run on the loop's thread in a coming turn, and wakes the
    /// loop if it sleeps (asyncio's `call_soon_threadsafe`). Callable from any thread,
    /// the loop's own included.
    ///
    /// Calls from one thread run in the order they were made. Fails with
    /// [`OffloadError::LoopClosed`] once the loop is closed (`callback` is dropped).
    pub fn call_soon_threadsafe(
        &self,
        callback: impl FnOnce() + Send + 'static,
    ) -> Result<(), OffloadError> {
        self.call_soon_threadsafe_named("call_soon_threadsafe", callback)
    }

    /// Like [`call_soon_threadsafe`](Self::call_soon_threadsafe), with a label for
    /// traces and reports.
    pub fn call_soon_threadsafe_named(
        &self,
        label: &'static str,
        callback: impl FnOnce() + Send + 'static,
    ) -> Result<(), OffloadError> {
        self.remote.inject(Injected::Callback {
            label,
            callback: Box::new(callback),
        })
    }

    /// Whether the loop is closed (or gone): calls would fail.
    pub fn is_closed(&self) -> bool {
        self.remote.is_closed()
    }
}

impl Clone for LoopHandle {
    fn clone(&self) -> Self {
        Self::new(Arc::clone(&self.remote), Arc::clone(&self.watch))
    }
}

/// The last handle's drop wakes a loop that sleeps only because handles were alive:
/// it now has a stall to report (see `idle_watch.rs`).
impl Drop for LoopHandle {
    fn drop(&mut self) {
        self.watch.handle_dropped(&self.remote);
    }
}

impl fmt::Debug for LoopHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopHandle")
            .field("remote", &self.remote)
            .finish()
    }
}
