//! The loop: libuv's `uv_run`, with Node's two queues drained after every callback.
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::fmt;
use std::io;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::inner::{Inner, enter};
use crate::io::Ready;
use crate::timers::TimerCallback;
use crate::{Clock, PollTimeout, RealClock, VirtualClock, poll_timeout};

/// Where the loop is: the phase whose callbacks run now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Not running.
    NotRunning,
    /// The main script (before the first iteration).
    Main,
    /// Due timers.
    Timers,
    /// Callbacks an earlier poll deferred to this iteration.
    Pending,
    /// libuv's idle and prepare handles: nothing of the user's runs here.
    IdlePrepare,
    /// Waiting for I/O, then running I/O callbacks.
    Poll,
    /// Immediates (`setImmediate`): libuv's check handles.
    Check,
    /// Close callbacks (`uv_close`).
    Close,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum NodeError {
    /// The poller failed.
    Io(io::Error),
    /// `run` was called while a loop already runs on this thread (nested runs are not
    /// allowed: Node has one loop per thread).
    AlreadyRunning,
    /// A task's waker was used from another thread. This loop has no thread-safe
    /// queue (stage 7 builds one for asyncio's loop), so it stops rather than hang.
    ForeignWake,
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeError::Io(e) => write!(f, "the poller failed: {e}"),
            NodeError::AlreadyRunning => f.write_str("a loop already runs on this thread"),
            NodeError::ForeignWake => f.write_str(
                "a task was woken from another thread; this loop only accepts wakes from its own thread",
            ),
        }
    }
}

impl std::error::Error for NodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NodeError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for NodeError {
    fn from(e: io::Error) -> Self {
        NodeError::Io(e)
    }
}

/// What a run leaves behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// Every line given to [`console_log`](crate::console_log), in order.
    pub output: Vec<String>,
    /// How many loop iterations ran after the main script.
    pub iterations: u64,
    /// For each line of `output`, where it was logged: the iteration (0 for the main
    /// script and the timers before the first iteration) and the phase. Observation
    /// only, for tools that draw a run.
    pub logged_in: Vec<(u64, Phase)>,
}

/// A Node-style loop: run a main script, then iterate through libuv's phases until
/// nothing is alive.
pub struct NodeLoop {
    inner: Rc<Inner>,
}

impl fmt::Debug for NodeLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeLoop")
            .field("inner", &self.inner)
            .finish()
    }
}

impl NodeLoop {
    /// A loop on the real clock (stage 5's [`RealClock`]).
    pub fn new() -> io::Result<Self> {
        Self::with_clock(RealClock::new())
    }

    /// A loop on a virtual clock (stage 5's [`VirtualClock`]): time moves only when
    /// the poll phase would sleep, straight to the deadline. A run on it gives the
    /// same order every time, whatever the machine.
    pub fn with_virtual_clock() -> io::Result<Self> {
        Self::with_clock(VirtualClock::new())
    }

    /// A loop on `clock`. The loop counts whole milliseconds, as libuv does: it
    /// rounds the clock's time down to the millisecond whenever it reads it.
    pub fn with_clock(clock: impl Clock) -> io::Result<Self> {
        Ok(Self {
            inner: Inner::new(Box::new(clock))?,
        })
    }

    /// The loop's cached time, in milliseconds since it was made.
    pub fn now(&self) -> u64 {
        self.inner.now.get()
    }

    /// Runs `main` as the main script, drains nextTicks and microtasks, then runs the
    /// loop until nothing is alive: libuv's `uv_run` in its default mode, laid out as
    /// libuv 1.45 and later lay it out (Node 20 ships such a libuv).
    ///
    /// Every callback the loop runs is followed by the drain of both queues.
    pub fn run(&mut self, main: impl FnOnce()) -> Result<RunReport, NodeError> {
        todo!("stage 8, challenge: the Node iteration; see chapter 8.1")
    }

    /// The timers phase: every timer due at the time read when the phase began,
    /// earliest first, each followed by the drain. A timer set meanwhile is due at
    /// least 1 ms after that, so it waits for a later timers phase.
    fn run_timers(&self) {
        todo!("stage 8, challenge: the Node iteration; see chapter 8.1")
    }

    /// A phase that runs a queue: exactly the callbacks queued when it began (libuv
    /// and Node both take the whole list first), each followed by the drain. What
    /// they queue for the same phase waits for the phase's next run.
    fn run_queue(&self, phase: Phase) {
        todo!("stage 8, challenge: the Node iteration; see chapter 8.1")
    }

    /// The poll phase: choose the timeout by libuv's rule, wait for I/O, update the
    /// time, run each ready watch's callback followed by the drain.
    ///
    /// The timeout is computed from the cached loop time, which may be stale: a
    /// callback that kept the thread busy since the last clock read does not move it.
    /// libuv corrects for that the way Node runs it. Node turns on libuv's idle-time
    /// metrics, and with them `uv__io_poll` first looks with a zero timeout, reads the
    /// clock, and then waits only what is left of the timeout. oneloop does the same.
    ///
    /// On a virtual clock the poll only looks, and if nothing is ready the clock jumps
    /// by what is left of the timeout (stage 5's `block_for`) instead of the thread
    /// waiting. It does not jump while I/O is ready, since no time had to pass for it;
    /// but it does not wait for I/O still in flight either: with a timer armed, a
    /// virtual clock fires it as soon as a poll finds nothing ready.
    ///
    /// A wake from another thread (`Ready::ForeignWake`) ends the run with
    /// `NodeError::ForeignWake`, but only after every other watch of the same batch has
    /// fired: a ready watch is out of the table until it fires, so one left unfired is
    /// lost, and a later run would wait on it for ever.
    fn run_poll(&self) -> Result<(), NodeError> {
        todo!("stage 8, challenge: the Node iteration; see chapter 8.1")
    }
}

/// Node's `node main.js`: runs `main` as the main script on a fresh loop on the real
/// clock, then the loop until nothing is alive (see [`NodeLoop::run`]). For a loop on
/// the virtual clock, build one with [`NodeLoop::with_virtual_clock`].
///
/// Called inside another run on this thread, it returns [`NodeError::AlreadyRunning`]
/// and `main` does not run.
pub fn run(main: impl FnOnce()) -> Result<RunReport, NodeError> {
    run_with(|| {}, main)
}

/// Node's `node --require preload.js main.js`: `preload` runs first, then `main`, as
/// one main script. What `preload` queues comes before what `main` queues, and the
/// nextTicks and microtasks of both are drained only after `main` returns, as Node
/// drains a preloaded module's queues only after the main module. `run(main)` is
/// `run_with(|| {}, main)`.
pub fn run_with(preload: impl FnOnce(), main: impl FnOnce()) -> Result<RunReport, NodeError> {
    let mut node = NodeLoop::new()?;
    node.run(|| {
        preload();
        main();
    })
}

impl Drop for NodeLoop {
    fn drop(&mut self) {
        // Leftovers are dropped outside every borrow; nothing here runs a queue.
        let tasks = self.inner.tasks.borrow_mut().take_all();
        drop(tasks);
        let leftovers = (
            self.inner.immediates.take(),
            self.inner.pending.take(),
            self.inner.closing.take(),
        );
        drop(leftovers);
        let timers = std::mem::take(&mut *self.inner.timers.borrow_mut());
        drop(timers);
        while self.inner.queues.pop_tick().is_some() || self.inner.queues.pop_microtask().is_some()
        {
        }
    }
}
