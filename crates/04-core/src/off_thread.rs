//! The general hook for wakes that come from another thread.
//!
//! Stage 4's answer to a task waker called on another thread is to flag the loop and
//! end its park, so the loop fails with [`LoopError::ForeignWake`] instead of sleeping
//! for ever (see [`LoopScheduler`]). Two later layers change what that wake does, and
//! both attach themselves here when their driver is installed:
//!
//! - a driver that sleeps somewhere a thread unpark cannot reach (stage 6 sleeps in
//!   `epoll_wait`) sets an [`Unparker`]: ending the park then goes through it;
//! - a layer that can carry the wake to the loop's thread (stage 7's injection queue)
//!   sets a [`RemoteWake`]: the waker then hands the task's id to it, and the loop no
//!   longer fails.
//!
//! # Why the flag is seen
//!
//! With no [`RemoteWake`], the waker stores the loop's `foreign` flag and *then* ends
//! the park. The flag carries no data, only "this happened". std promises that an
//! unpark happens-before the return of the park it ends; an [`Unparker`] that writes
//! an eventfd gets the same order from the system call in practice. So the loop, which
//! checks the flag after every park, sees it. The store and the load are `SeqCst`:
//! more than this needs, and short to state.
//!
//! Both hooks are set once, when the loop is built, before any waker of the loop can
//! reach another thread; a wake that came earlier would have taken stage 4's path.
//!
//! [`LoopError::ForeignWake`]: crate::LoopError::ForeignWake
//! [`LoopScheduler`]: crate::LoopScheduler

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::thread::Thread;

use oneloop_task::TaskId;

use crate::Unparker;

// ANCHOR: remote_wake
/// A layer that carries wakes from other threads to the loop (stage 7's injection
/// queue). Installed once with [`LoopScheduler::set_remote`](crate::LoopScheduler::set_remote).
pub trait RemoteWake: Send + Sync + 'static {
    /// A waker of task `id` fired on a thread that is not the loop's: queue the step
    /// somewhere the loop will find it, and end the loop's park.
    fn wake_from_thread(&self, id: TaskId);
}
// ANCHOR_END: remote_wake

// ANCHOR: off_thread_hooks
/// What later layers attach to a wake from another thread: empty in stage 4.
#[derive(Default)]
pub struct OffThreadHooks {
    /// The driver's way to end its park, set by a driver a thread unpark cannot reach.
    unparker: OnceLock<Unparker>,
    /// The layer that takes wakes from other threads, if one was installed.
    remote: OnceLock<Arc<dyn RemoteWake>>,
}

impl OffThreadHooks {
    /// Hands the wake of task `id` to the installed [`RemoteWake`], if any; `false`
    /// when none is installed (the caller then takes stage 4's failing path).
    pub(crate) fn carry(&self, id: TaskId) -> bool {
        match self.remote.get() {
            Some(remote) => {
                remote.wake_from_thread(id);
                true
            }
            None => false,
        }
    }

    /// Ends the loop's park: through the driver's [`Unparker`] if one was set, else by
    /// unparking the loop's thread.
    pub(crate) fn unpark(&self, thread: &Thread) {
        match self.unparker.get() {
            Some(unparker) => unparker.unpark(),
            None => thread.unpark(),
        }
    }
}
// ANCHOR_END: off_thread_hooks

impl OffThreadHooks {
    /// Sets the driver's unparker. Returns `false` (and changes nothing) if one was
    /// already set.
    pub fn set_unparker(&self, unparker: Unparker) -> bool {
        self.unparker.set(unparker).is_ok()
    }

    /// The driver's unparker, if one was set.
    pub fn unparker(&self) -> Option<&Unparker> {
        self.unparker.get()
    }

    /// Hands every later wake from another thread to `remote`. Returns `false` (and
    /// changes nothing) if a remote was already installed.
    pub fn set_remote(&self, remote: Arc<dyn RemoteWake>) -> bool {
        self.remote.set(remote).is_ok()
    }

    /// Whether a layer takes wakes from other threads.
    pub fn has_remote(&self) -> bool {
        self.remote.get().is_some()
    }
}

impl fmt::Debug for OffThreadHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OffThreadHooks")
            .field("unparker", &self.unparker.get().is_some())
            .field("remote", &self.remote.get().is_some())
            .finish()
    }
}
