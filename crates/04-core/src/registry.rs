//! How a `Send + Sync` waker finds a loop that is neither: the per-thread registry.
//!
//! A task's waker must be `Send + Sync`, but the loop is full of `Rc` and `RefCell`.
//! So a waker holds no reference to the loop at all. It holds the task's id and an
//! `Arc<LoopScheduler>`, which holds the loop's id and its thread. Waking does this:
//!
//! - **on the loop's thread**: look the loop up by id in this thread's registry of live
//!   loops (a short list of `Weak<Core>`), and push the task's step onto its ready queue,
//!   as asyncio's `call_soon` would. Two loops on one thread each find their own.
//! - **on any other thread**: the loop cannot be touched from here. The waker sets the
//!   loop's `foreign` flag and ends the loop's park, so the *loop* stops with
//!   [`LoopError::ForeignWake`] instead of sleeping for ever with a wake it never
//!   received. (Later layers change this path through a general hook,
//!   [`OffThreadHooks`](crate::hooks::OffThreadHooks).)
//!
//! The registry also holds the one thread-local futures use to find the running loop
//! (for its extensions, or to spawn): [`with_current`], and the id of the loop that
//! is running a turn on this thread, so that running a second loop inside it is
//! refused ([`LoopError::AnotherLoopRunning`]).

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, Thread};

use oneloop_task::{JoinHandle, Schedule, TaskId};

use crate::{Core, LoopError, OffThreadHooks, RemoteWake, Unparker};

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
    /// The loop running a turn (or closing) on this thread right now, if any.
    static CURRENT: RefCell<Option<Rc<Core>>> = const { RefCell::new(None) };
    /// The loop running a turn on this thread right now, if any (a loop that is only
    /// closing is current, but not running).
    static RUNNING: Cell<Option<LoopId>> = const { Cell::new(None) };
    /// How many times a waker searched this thread's registry for its loop.
    static SEARCHES: Cell<u64> = const { Cell::new(0) };
}

/// How many times a waker on this thread searched the thread's registry for its loop
/// (a wake whose loop is not the one running a turn here). A wake from the loop's own
/// turn finds the loop current and searches nothing.
pub fn registry_searches() -> u64 {
    SEARCHES.with(Cell::get)
}

pub(crate) fn register(core: &Rc<Core>) {
    LOOPS.with(|loops| loops.borrow_mut().push((core.id(), Rc::downgrade(core))));
}

pub(crate) fn unregister(id: LoopId) {
    // At thread exit the registry may already be gone; then there is nothing to remove.
    let _ = LOOPS.try_with(|loops| loops.borrow_mut().retain(|(live, _)| *live != id));
}

/// Queues the step of task `task` if loop `id` is the current loop of this thread
/// (running a turn, or closing: a closed loop queues nothing). Returns whether it was.
/// The wake path queues a handle and runs no user code, so the thread-local stays
/// borrowed meanwhile and no `Rc` of the loop is cloned.
fn wake_if_current(id: LoopId, task: TaskId) -> bool {
    CURRENT
        .try_with(|current| match current.try_borrow().as_deref() {
            Ok(Some(core)) if core.id() == id => {
                if !core.is_closed() {
                    core.wake_here(task);
                }
                true
            }
            _ => false,
        })
        .unwrap_or(false)
}

fn find(id: LoopId) -> Option<Rc<Core>> {
    let _ = SEARCHES.try_with(|searches| searches.set(searches.get() + 1));
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

// ANCHOR: loop_scheduler
/// How the wakers of one loop schedule a task's step: the loop's id and its thread,
/// shared by every waker of the loop. (It is the loop's [`Schedule`]; each task's cell
/// holds it in its header, where the task's wakers read it.)
pub struct LoopScheduler {
    loop_id: LoopId,
    thread: Thread,
    /// Set by a wake from another thread that nothing could carry.
    foreign: AtomicBool,
    /// What later layers add to a wake from another thread (empty at this stage).
    off_thread: OffThreadHooks,
}

impl Schedule for LoopScheduler {
    fn schedule(&self, id: TaskId) {
        // The usual wake comes from a task or callback of the loop's own turn: the
        // current loop is this one, and is used where it lies.
        if wake_if_current(self.loop_id, id) {
            return;
        }
        // Only the loop's own thread has the loop in its registry (ids are unique in
        // the process), so finding it there answers "which thread?" without asking
        // for `thread::current()`.
        if let Some(core) = find(self.loop_id) {
            if !core.is_closed() {
                core.wake_here(id);
            }
        } else if thread::current().id() == self.thread.id() {
            // The loop's own thread, and the loop is gone: nothing to wake.
        } else if !self.off_thread.carry(id) {
            // Another thread, and nothing carries the wake to the loop: flag the loop,
            // then end its park, so the loop fails loudly instead of sleeping with a
            // wake it never received.
            self.foreign.store(true, Ordering::SeqCst);
            self.off_thread.unpark(&self.thread);
        }
    }
}
// ANCHOR_END: loop_scheduler

impl fmt::Debug for LoopScheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopScheduler")
            .field("loop_id", &self.loop_id)
            .field("thread", &self.thread.id())
            .field("foreign", &self.foreign.load(Ordering::Relaxed))
            .field("off_thread", &self.off_thread)
            .finish()
    }
}

impl LoopScheduler {
    pub(crate) fn new(loop_id: LoopId) -> Self {
        Self {
            loop_id,
            thread: thread::current(),
            foreign: AtomicBool::new(false),
            off_thread: OffThreadHooks::default(),
        }
    }

    /// The loop this scheduler wakes.
    pub fn loop_id(&self) -> LoopId {
        self.loop_id
    }

    /// The loop's thread.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    /// The hooks later layers set for wakes from other threads.
    pub fn off_thread(&self) -> &OffThreadHooks {
        &self.off_thread
    }

    /// Ends every later park early through `unparker` (for a driver a thread unpark
    /// cannot reach; stage 6's epoll driver sets its eventfd here when it is
    /// installed). Returns `false` (and changes nothing) if one was already set.
    pub fn set_unparker(&self, unparker: Unparker) -> bool {
        self.off_thread.set_unparker(unparker)
    }

    /// Hands every later wake from another thread to `remote` instead of failing the
    /// loop. Returns `false` (and changes nothing) if a remote was already installed.
    ///
    /// Install it before any waker of the loop can reach another thread (stage 7 does
    /// it when its driver is installed): a wake that came earlier took the failing path.
    pub fn set_remote(&self, remote: Arc<dyn RemoteWake>) -> bool {
        self.off_thread.set_remote(remote)
    }

    /// Whether a layer takes wakes from other threads ([`set_remote`](Self::set_remote)).
    pub fn has_remote(&self) -> bool {
        self.off_thread.has_remote()
    }

    /// Ends the loop's park: through the driver's unparker if one was set, else by
    /// unparking the loop's thread.
    pub fn unpark_loop(&self) {
        self.off_thread.unpark(&self.thread);
    }

    /// Reports (once) a wake that came from another thread. Called by the loop on its
    /// own thread before and after every park.
    #[inline]
    pub(crate) fn take_foreign_wake(&self) -> Result<(), LoopError> {
        // A plain load first: the flag is almost never set, and a load is cheaper
        // than the swap that clears it. A store that happened before this park's end
        // is seen by either (see `OffThreadHooks`).
        if self.foreign.load(Ordering::SeqCst) && self.foreign.swap(false, Ordering::SeqCst) {
            Err(LoopError::ForeignWake)
        } else {
            Ok(())
        }
    }
}

impl Core {
    /// The shared half of this loop's wakers (for a layer that sets one of its
    /// [`OffThreadHooks`]).
    pub fn scheduler(&self) -> Arc<LoopScheduler> {
        Arc::clone(self.tasks.borrow().scheduler())
    }

    /// Queues one step of task `id`, exactly as its waker does on the loop's thread:
    /// at the back of the ready queue, at most once per turn, nothing for a stale id or
    /// a closed loop. A layer that carried a wake from another thread calls this on
    /// the loop's thread to deliver it.
    pub fn wake_task(&self, id: TaskId) {
        if !self.is_closed() {
            self.wake_here(id);
        }
    }
}

/// Makes `core` the current loop until the guard is dropped (then the previous one is
/// current again, so a loop closed from inside another's callback finds its own
/// extensions, and then the other's again).
pub(crate) fn enter(core: &Rc<Core>) -> Enter {
    let previous = CURRENT.with(|current| current.borrow_mut().replace(Rc::clone(core)));
    Enter {
        previous,
        running: None,
    }
}

/// Like [`enter`], for a turn: `core` is also the running loop until the guard is
/// dropped.
pub(crate) fn enter_turn(core: &Rc<Core>) -> Enter {
    let mut entered = enter(core);
    entered.running = Some(RUNNING.with(|running| running.replace(Some(core.id()))));
    entered
}

/// The loop running a turn on this thread, if any.
pub(crate) fn running() -> Option<LoopId> {
    RUNNING.with(Cell::get)
}

pub(crate) struct Enter {
    previous: Option<Rc<Core>>,
    /// For a turn: the running loop before it (`Some(None)`: none was running).
    running: Option<Option<LoopId>>,
}

impl Drop for Enter {
    fn drop(&mut self) {
        if let Some(previous) = self.running.take() {
            let _ = RUNNING.try_with(|running| running.set(previous));
        }
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
