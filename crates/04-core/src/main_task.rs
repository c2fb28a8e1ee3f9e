//! The main task of `run_until_complete`, and the callback that stops the loop after it.
//!
//! asyncio's `run_until_complete(main)` wraps `main` in a task and adds one done
//! callback to it, `_run_until_complete_cb`, which calls `loop.stop()`. When the task
//! finishes in turn *T* — returning or raising — its done callbacks are queued with
//! `call_soon`, so the stop callback runs in turn *T + 1*, and `run_forever` returns at
//! the end of that turn. After `run_forever` returns, the callback is removed again
//! (`remove_done_callback`), so a main task that finishes later stops nothing.
//!
//! oneloop's tasks have no done callbacks. The same thing is done with a guard that
//! lives inside the main task's future: when the future finishes, its locals are
//! dropped, and the guard's `Drop` queues the stop callback through the ordinary
//! `call_soon` path. A drop runs on every way out — a return, and a panic (the unwind
//! drops the guard, and the task's catch turns the panic into a [`JoinError`]) — so
//! the stop callback comes in both cases, one turn later, as in asyncio. The guard
//! touches nothing but the ready queue: no borrow of the task slab is held while it
//! runs, and on a closed loop its `call_soon` queues nothing.
//!
//! [`JoinError`]: oneloop_task::JoinError

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::rc::{Rc, Weak};

use oneloop_task::{JoinError, JoinHandle};

use crate::Core;

/// The label of the callback that stops the loop once the main task is done, named as
/// asyncio names its function.
pub const RUN_UNTIL_COMPLETE_CB: &str = "_run_until_complete_cb";

// ANCHOR: stop_guard
/// Lives inside the main task's future; when it is dropped (main returned, panicked,
/// or was dropped unfinished), queues the callback that stops the loop — unless
/// `run_until_complete` has returned and disarmed it.
struct StopWhenDone {
    /// Weak: the task's future is owned by the core, so a strong pointer back to the
    /// core would be a cycle that keeps both alive.
    core: Weak<Core>,
    armed: Rc<Cell<bool>>,
}

impl Drop for StopWhenDone {
    fn drop(&mut self) {
        if !self.armed.get() {
            return; // asyncio's `remove_done_callback`: run_until_complete is over
        }
        let Some(core) = self.core.upgrade() else {
            return; // the loop is gone
        };
        let stopper = Rc::downgrade(&core);
        // The ordinary `call_soon`: behind whatever main's last step queued. On a
        // closed loop it queues nothing (see `Core::call_soon`).
        core.call_soon_named(RUN_UNTIL_COMPLETE_CB, move || {
            if let Some(core) = stopper.upgrade() {
                core.stop();
            }
        });
    }
}

/// The main task: its join handle, and the switch that disarms its stop guard.
pub(crate) struct MainTask<T> {
    handle: JoinHandle<T>,
    armed: Rc<Cell<bool>>,
}

/// Spawns `future` as the task labelled `main`, with a [`StopWhenDone`] guard inside.
pub(crate) fn spawn_main<F: Future + 'static>(core: &Rc<Core>, future: F) -> MainTask<F::Output> {
    let armed = Rc::new(Cell::new(true));
    let guard = StopWhenDone {
        core: Rc::downgrade(core),
        armed: Rc::clone(&armed),
    };
    let handle = core.spawn_named("main", async move {
        // Dropped when this block returns, when a panic unwinds through it, or when
        // the unfinished task is dropped (at close).
        let _guard = guard;
        future.await
    });
    MainTask { handle, armed }
}
// ANCHOR_END: stop_guard

impl<T> MainTask<T> {
    /// Main's result, if it has finished.
    pub(crate) fn try_take(&self) -> Option<Result<T, JoinError>> {
        self.handle.try_take()
    }
}

impl<T> Drop for MainTask<T> {
    /// `run_until_complete` is over: a main task that finishes later stops nothing.
    fn drop(&mut self) {
        self.armed.set(false);
    }
}

impl<T> fmt::Debug for MainTask<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MainTask")
            .field("handle", &self.handle)
            .field("armed", &self.armed.get())
            .finish()
    }
}
