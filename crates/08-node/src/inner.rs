//! The loop's state, shared by the loop and the functions that stand for Node's
//! globals, and the one thread-local that finds it.
//!
//! Node's globals (`setTimeout`, `process.nextTick`, ...) need no loop argument: there
//! is one loop per thread. oneloop's free functions find the running loop the same
//! way, through `CURRENT`, set by [`NodeLoop::run`](crate::NodeLoop::run) for the
//! length of the run. Every field uses short borrows: no `RefCell` is borrowed while
//! user code runs.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::io::Io;
use crate::queues::Job;
use crate::task::Tasks;
use crate::timers::Timers;
use crate::{Clock, Phase, PollFacts, Queues};

/// Whole milliseconds on `clock`, rounded down: libuv's loop time (`uv_now`) counts
/// milliseconds, while stage 5's [`Clock`] gives a `Duration`.
fn millis(clock: &dyn Clock) -> u64 {
    u64::try_from(clock.now().as_millis()).unwrap_or(u64::MAX)
}

/// Set by a wake from another thread; the loop reads it when the poller wakes up.
#[derive(Debug)]
pub(crate) struct ForeignWake {
    pub(crate) flag: AtomicBool,
    pub(crate) waker: Arc<mio::Waker>,
}

/// Everything one loop holds.
pub(crate) struct Inner {
    pub(crate) id: u64,
    /// Stage 5's clock, real or virtual. The loop reads it only at the points where
    /// libuv calls `uv__update_time`, and keeps the result in `now`.
    pub(crate) clock: Box<dyn Clock>,
    /// The cached loop time (libuv's `loop->time`), in milliseconds.
    pub(crate) now: Cell<u64>,
    pub(crate) iteration: Cell<u64>,
    pub(crate) phase: Cell<Phase>,
    pub(crate) stopping: Cell<bool>,
    pub(crate) queues: Queues,
    pub(crate) timers: RefCell<Timers>,
    pub(crate) pending: RefCell<VecDeque<Job>>,
    pub(crate) immediates: RefCell<VecDeque<Job>>,
    /// Close callbacks, the last closed first (see [`Inner::queue_close`]).
    pub(crate) closing: RefCell<VecDeque<Job>>,
    pub(crate) io: RefCell<Io>,
    pub(crate) tasks: RefCell<Tasks>,
    pub(crate) output: RefCell<Vec<String>>,
    /// For each line of `output`: the iteration and phase that logged it.
    pub(crate) logged_in: RefCell<Vec<(u64, Phase)>>,
    pub(crate) foreign: Arc<ForeignWake>,
}

impl fmt::Debug for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inner")
            .field("id", &self.id)
            .field("now", &self.now.get())
            .field("iteration", &self.iteration.get())
            .field("phase", &self.phase.get())
            .field("queues", &self.queues)
            .field("timers", &self.timers.borrow())
            .field("immediates", &self.immediates.borrow().len())
            .field("io", &self.io.borrow())
            .finish_non_exhaustive()
    }
}

static NEXT_LOOP_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static CURRENT: RefCell<Option<Rc<Inner>>> = const { RefCell::new(None) };
}

impl Inner {
    pub(crate) fn new(clock: Box<dyn Clock>) -> std::io::Result<Rc<Self>> {
        let io = Io::new()?;
        let foreign = Arc::new(ForeignWake {
            flag: AtomicBool::new(false),
            waker: io.waker(),
        });
        Ok(Rc::new(Self {
            id: NEXT_LOOP_ID.fetch_add(1, Ordering::Relaxed),
            now: Cell::new(millis(clock.as_ref())),
            clock,
            iteration: Cell::new(0),
            phase: Cell::new(Phase::NotRunning),
            stopping: Cell::new(false),
            queues: Queues::new(),
            timers: RefCell::new(Timers::default()),
            pending: RefCell::new(VecDeque::new()),
            immediates: RefCell::new(VecDeque::new()),
            closing: RefCell::new(VecDeque::new()),
            io: RefCell::new(io),
            tasks: RefCell::new(Tasks::default()),
            output: RefCell::new(Vec::new()),
            logged_in: RefCell::new(Vec::new()),
            foreign,
        }))
    }

    /// libuv's `uv__update_time`: read the clock into the cached loop time.
    pub(crate) fn update_time(&self) {
        self.now.set(millis(self.clock.as_ref()));
    }

    // ANCHOR: alive
    /// libuv's `uv__loop_alive`: is there anything that could still run a callback?
    /// Armed timers (but not unref'd ones), open watches, queued immediates (Node's
    /// idle handle), pending and close callbacks. A pending promise is not on the list: nothing in the loop
    /// would ever settle it, and Node exits with it pending too.
    pub(crate) fn alive(&self) -> bool {
        self.timers.borrow().refed() > 0
            || self.io.borrow().len() > 0
            || !self.immediates.borrow().is_empty()
            || !self.pending.borrow().is_empty()
            || !self.closing.borrow().is_empty()
    }
    // ANCHOR_END: alive

    /// The facts the poll timeout rule reads, gathered now.
    pub(crate) fn poll_facts(&self) -> PollFacts {
        PollFacts {
            stopping: self.stopping.get(),
            alive: self.alive(),
            pending: !self.pending.borrow().is_empty(),
            immediates: !self.immediates.borrow().is_empty(),
            closing: !self.closing.borrow().is_empty(),
            next_timer: self.timers.borrow().next_deadline(),
            now: self.now.get(),
        }
    }

    /// libuv's `uv_close`, for its callback: libuv keeps the handles being closed in a
    /// singly linked list and puts each new one at its head, so the close phase runs
    /// the callback of the last handle closed first. (A watch closed from inside its
    /// own callback is queued when that callback returns.)
    pub(crate) fn queue_close(&self, on_close: Job) {
        self.closing.borrow_mut().push_front(on_close);
    }

    // ANCHOR: run_macrotask
    /// Runs one callback from the loop, then drains nextTicks and microtasks: Node's
    /// rule for every macrotask.
    pub(crate) fn run_macrotask(&self, job: impl FnOnce()) {
        job();
        self.queues.drain();
    }
    // ANCHOR_END: run_macrotask
}

/// The running loop on this thread, for a function named `what`.
///
/// # Panics
///
/// When no loop runs on this thread: Node's globals have no meaning outside a loop.
pub(crate) fn current(what: &str) -> Rc<Inner> {
    try_current().unwrap_or_else(|| {
        panic!("oneloop-node: `{what}` was called outside NodeLoop::run (no loop is running on this thread)")
    })
}

/// The running loop on this thread, if any.
pub(crate) fn try_current() -> Option<Rc<Inner>> {
    CURRENT.with(|current| current.borrow().clone())
}

/// Makes `inner` the current loop until the guard drops, or says which loop already is.
pub(crate) fn enter(inner: &Rc<Inner>) -> Result<EnterGuard, u64> {
    CURRENT.with(|current| {
        let mut current = current.borrow_mut();
        if let Some(running) = current.as_ref() {
            return Err(running.id);
        }
        *current = Some(Rc::clone(inner));
        Ok(EnterGuard(()))
    })
}

/// Clears the current loop when dropped (also when a callback panics).
#[derive(Debug)]
pub(crate) struct EnterGuard(());

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let left = CURRENT.with(|current| current.borrow_mut().take());
        // Dropped outside the thread-local's borrow.
        drop(left);
    }
}
