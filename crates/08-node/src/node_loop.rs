//! The loop: libuv's `uv_run`, with Node's two queues drained after every callback.

use std::fmt;
use std::io;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use crate::inner::{Inner, enter};
use crate::io::Ready;
use crate::timers::TimerCallback;
use crate::{Clock, PollTimeout, poll_timeout};

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
    /// A loop on the real clock.
    pub fn new() -> io::Result<Self> {
        Self::with_clock(Clock::real())
    }

    /// A loop on the virtual clock: time moves only when the poll phase would sleep.
    pub fn with_virtual_clock() -> io::Result<Self> {
        Self::with_clock(Clock::virtual_clock())
    }

    /// A loop on `clock`.
    pub fn with_clock(clock: Clock) -> io::Result<Self> {
        Ok(Self {
            inner: Inner::new(clock)?,
        })
    }

    /// The loop's cached time, in milliseconds since it was made.
    pub fn now(&self) -> u64 {
        self.inner.now.get()
    }

    // ANCHOR: run
    /// Runs `main` as the main script, drains nextTicks and microtasks, then iterates
    /// until nothing is alive (libuv's `uv_run` in its default mode).
    ///
    /// Every callback the loop runs is followed by the drain of both queues.
    pub fn run(&mut self, main: impl FnOnce()) -> Result<RunReport, NodeError> {
        let _current = enter(&self.inner).map_err(|_| NodeError::AlreadyRunning)?;
        let inner = &self.inner;
        inner.stopping.set(false);
        inner.update_time();
        inner.phase.set(Phase::Main);
        inner.iteration.set(0);
        inner.run_macrotask(main);
        while inner.alive() && !inner.stopping.get() {
            inner.iteration.set(inner.iteration.get() + 1);
            inner.update_time();
            self.run_timers();
            self.run_queue(Phase::Pending);
            inner.phase.set(Phase::IdlePrepare);
            self.run_poll()?;
            self.run_queue(Phase::Check);
            self.run_queue(Phase::Close);
        }
        inner.phase.set(Phase::NotRunning);
        Ok(RunReport {
            output: inner.output.take(),
            iterations: inner.iteration.get(),
        })
    }
    // ANCHOR_END: run

    // ANCHOR: run_timers
    /// The timers phase: every timer due at the time read when the phase began,
    /// earliest first, each followed by the drain. A timer set meanwhile is due at
    /// least 1 ms after that, so it waits for a later iteration.
    fn run_timers(&self) {
        let inner = &self.inner;
        inner.phase.set(Phase::Timers);
        let now = inner.now.get();
        loop {
            let due = inner.timers.borrow_mut().pop_due(now);
            let Some((id, callback)) = due else { break };
            match callback {
                TimerCallback::Once(job) => inner.run_macrotask(job),
                TimerCallback::Repeat {
                    every,
                    mut callback,
                } => inner.run_macrotask(|| {
                    callback();
                    let repeat = TimerCallback::Repeat { every, callback };
                    // Re-armed from a fresh clock read and before the drain, as Node
                    // does; dropped if the callback cleared it.
                    inner.update_time();
                    let start = inner.now.get();
                    let cleared = inner.timers.borrow_mut().rearm(id, start, repeat);
                    drop(cleared);
                }),
            }
        }
    }
    // ANCHOR_END: run_timers

    // ANCHOR: run_queue
    /// A phase that runs a queue: exactly the callbacks queued when it began (libuv
    /// and Node both take the whole list first), each followed by the drain. What
    /// they queue for the same phase waits for the next iteration.
    fn run_queue(&self, phase: Phase) {
        let inner = &self.inner;
        inner.phase.set(phase);
        let queue = match phase {
            Phase::Pending => &inner.pending,
            Phase::Check => &inner.immediates,
            Phase::Close => &inner.closing,
            _ => return,
        };
        let batch = queue.take();
        for job in batch {
            inner.run_macrotask(job);
        }
    }
    // ANCHOR_END: run_queue

    // ANCHOR: run_poll
    /// The poll phase: choose the timeout by libuv's rule, wait for I/O (on the
    /// virtual clock, jump to the deadline instead of waiting), update the time, run
    /// each ready watch's callback followed by the drain.
    fn run_poll(&self) -> Result<(), NodeError> {
        let inner = &self.inner;
        inner.phase.set(Phase::Poll);
        let timeout = poll_timeout(&inner.poll_facts());
        let wait = match timeout {
            PollTimeout::Millis(ms) => Some(inner.clock.real_wait(ms)),
            PollTimeout::Forever => None,
        };
        let ready = inner.io.borrow_mut().poll(wait)?;
        if let PollTimeout::Millis(ms) = timeout
            && ready.is_empty()
        {
            inner.clock.advance(ms);
        }
        inner.update_time();
        for event in ready {
            match event {
                Ready::ForeignWake => {
                    if inner.foreign.flag.swap(false, Ordering::SeqCst) {
                        return Err(NodeError::ForeignWake);
                    }
                }
                Ready::Fire(token, mut watched, interest) => {
                    let keep = watched.fire();
                    let closed = inner
                        .io
                        .borrow_mut()
                        .after_fire(token, watched, interest, keep)?;
                    if let Some(job) = closed.on_close {
                        inner.closing.borrow_mut().push_back(job);
                    }
                    // The spent watch is dropped with no borrow held.
                    drop(closed.watched);
                    inner.queues.drain();
                }
            }
        }
        Ok(())
    }
    // ANCHOR_END: run_poll
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
