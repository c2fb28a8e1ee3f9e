//! How a `Send + Sync` waker finds a loop that is neither: the per-thread registry.
//!
//! A task's waker must be `Send + Sync`, but the loop is full of `Rc` and `RefCell`.
//! So a waker holds no reference to the loop at all. It holds the task's id and an
//! `Arc<LoopWaker>`, which holds the loop's id and its thread. Waking does this:
//!
//! - **on the loop's thread**: look the loop up by id in this thread's registry of live
//!   loops (a short list of `Weak<Core>`), and push the task's step onto its ready queue,
//!   as asyncio's `call_soon` would. Two loops on one thread each find their own.
//! - **on any other thread**: the loop cannot be touched from here. Stage 7 brings an
//!   injection queue for this; until then the waker sets the loop's `foreign` flag and
//!   unparks the loop's thread, so the *loop* stops with [`LoopError::ForeignWake`]
//!   instead of sleeping for ever with a wake it never received.
//!
//! The registry also holds the one thread-local futures use to find the running loop
//! (for its extensions, or to spawn): [`with_current`].

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, Thread};

use oneloop_task::{JoinHandle, Schedule, TaskId};

use crate::{Core, LoopError};

/// The name of one loop, unique in the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoopId(pub(crate) u64);

impl fmt::Display for LoopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loop {}", self.0)
    }
}

thread_local! {
    /// The live loops of this thread.
    static LOOPS: RefCell<Vec<(LoopId, Weak<Core>)>> = const { RefCell::new(Vec::new()) };
    /// The loop running a turn on this thread right now, if any.
    static CURRENT: RefCell<Option<Rc<Core>>> = const { RefCell::new(None) };
}

pub(crate) fn register(core: &Rc<Core>) {
    LOOPS.with(|loops| loops.borrow_mut().push((core.id(), Rc::downgrade(core))));
}

pub(crate) fn unregister(id: LoopId) {
    // At thread exit the registry may already be gone; then there is nothing to remove.
    let _ = LOOPS.try_with(|loops| loops.borrow_mut().retain(|(live, _)| *live != id));
}

fn find(id: LoopId) -> Option<Rc<Core>> {
    LOOPS
        .try_with(|loops| {
            loops
                .borrow()
                .iter()
                .find(|(live, _)| *live == id)
                .and_then(|(_, core)| core.upgrade())
        })
        .ok()
        .flatten()
}

// ANCHOR: loop_waker
/// The shared half of every waker of one loop: which loop, on which thread.
#[derive(Debug)]
pub struct LoopWaker {
    loop_id: LoopId,
    thread: Thread,
    foreign: AtomicBool,
}

impl Schedule for LoopWaker {
    fn schedule(&self, id: TaskId) {
        if thread::current().id() == self.thread.id() {
            // The loop's own thread: find the loop (it may be gone) and queue the step.
            if let Some(core) = find(self.loop_id)
                && !core.is_closed()
            {
                core.wake_here(id);
            }
        } else {
            // Another thread: flag the loop and wake its thread, so it fails loudly.
            self.foreign.store(true, Ordering::SeqCst);
            self.thread.unpark();
        }
    }
}
// ANCHOR_END: loop_waker

impl LoopWaker {
    pub(crate) fn new(loop_id: LoopId) -> Self {
        Self {
            loop_id,
            thread: thread::current(),
            foreign: AtomicBool::new(false),
        }
    }

    /// The loop this waker wakes.
    pub fn loop_id(&self) -> LoopId {
        self.loop_id
    }

    /// The loop's thread.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    /// Reports (once) a wake that came from another thread.
    pub(crate) fn take_foreign_wake(&self) -> Result<(), LoopError> {
        if self.foreign.swap(false, Ordering::SeqCst) {
            Err(LoopError::ForeignWake)
        } else {
            Ok(())
        }
    }
}

/// Makes `core` the current loop until the guard is dropped (then the previous one is
/// current again, so a loop run from inside another's callback nests correctly).
pub(crate) fn enter(core: &Rc<Core>) -> Enter {
    let previous = CURRENT.with(|current| current.borrow_mut().replace(Rc::clone(core)));
    Enter { previous }
}

pub(crate) struct Enter {
    previous: Option<Rc<Core>>,
}

impl Drop for Enter {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let _ = CURRENT.try_with(|current| *current.borrow_mut() = previous);
    }
}

// ANCHOR: with_current
/// Runs `f` with the loop that is running a turn on this thread, if any.
///
/// This is how a future finds its loop on first poll: `with_current(|core|
/// core.extensions().get::<Timers>())`. The `Rc` is cloned out of the thread-local
/// before `f` runs, so `f` may run any loop code.
pub fn with_current<R>(f: impl FnOnce(&Rc<Core>) -> R) -> Option<R> {
    let core = CURRENT.with(|current| current.borrow().clone())?;
    Some(f(&core))
}
// ANCHOR_END: with_current

/// Spawns `future` on the loop running on this thread (asyncio's `create_task`).
///
/// # Panics
///
/// When no loop is running on this thread: there is nowhere to put the task. Use
/// [`Core::spawn`] to spawn on a loop that is not running.
pub fn spawn<F: Future + 'static>(future: F) -> JoinHandle<F::Output> {
    with_current(|core| core.spawn(future))
        .expect("oneloop_core::spawn needs a running loop on this thread")
}
