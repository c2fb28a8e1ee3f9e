//! The loop: libuv's `uv_run`, with Node's two queues drained after every callback.

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

    // ANCHOR: run
    /// Runs `main` as the main script, drains nextTicks and microtasks, then runs the
    /// loop until nothing is alive: libuv's `uv_run` in its default mode, laid out as
    /// libuv 1.45 and later lay it out (Node 20 ships such a libuv).
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
        // uv_run asks once whether anything is alive, and not again until the end of
        // the first iteration.
        let mut alive = inner.alive();
        if alive && !inner.stopping.get() {
            // Before the first iteration, the timers already due run once (still
            // iteration 0).
            inner.update_time();
            self.run_timers();
        }
        while alive && !inner.stopping.get() {
            inner.iteration.set(inner.iteration.get() + 1);
            self.run_queue(Phase::Pending);
            inner.phase.set(Phase::IdlePrepare);
            self.run_poll()?;
            // Callbacks the poll deferred get up to eight more rounds right away.
            for _ in 0..8 {
                if inner.pending.borrow().is_empty() {
                    break;
                }
                self.run_queue(Phase::Pending);
            }
            self.run_queue(Phase::Check);
            self.run_queue(Phase::Close);
            // The iteration ends with the timers, then the question "alive?".
            inner.update_time();
            self.run_timers();
            alive = inner.alive();
        }
        inner.phase.set(Phase::NotRunning);
        Ok(RunReport {
            output: inner.output.take(),
            iterations: inner.iteration.get(),
            logged_in: inner.logged_in.take(),
        })
    }
    // ANCHOR_END: run

    // ANCHOR: run_timers
    /// The timers phase: every timer due at the time read when the phase began,
    /// earliest first, each followed by the drain. A timer set meanwhile is due at
    /// least 1 ms after that, so it waits for a later timers phase.
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
                    // Node reads the clock just before an interval's callback and
                    // re-arms it from that reading, so a slow callback does not push
                    // the next run back.
                    inner.update_time();
                    let start = inner.now.get();
                    callback();
                    let repeat = TimerCallback::Repeat { every, callback };
                    // Re-armed before the drain; dropped if the callback cleared it.
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
    /// they queue for the same phase waits for the phase's next run.
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
        let inner = &self.inner;
        inner.phase.set(Phase::Poll);
        let base = inner.now.get();
        let wait = match poll_timeout(&inner.poll_facts()) {
            PollTimeout::Millis(ms) => Some(Duration::from_millis(ms)),
            PollTimeout::Forever => None,
        };
        let mut ready = inner.io.borrow_mut().poll(Some(Duration::ZERO))?;
        inner.update_time();
        if ready.is_empty() && wait != Some(Duration::ZERO) {
            let spent = Duration::from_millis(inner.now.get().saturating_sub(base));
            let left = wait.map(|wait| wait.saturating_sub(spent));
            match left {
                // The stale time already covered the whole timeout.
                Some(Duration::ZERO) => {}
                Some(by) if inner.clock.is_virtual() => inner.clock.block_for(by),
                // With no timeout even a virtual clock waits for real: only I/O can come.
                _ => ready = inner.io.borrow_mut().poll(left)?,
            }
            inner.update_time();
        }
        // A foreign wake ends the run, but only after the rest of this poll's batch:
        // each ready watch is out of the table, and only firing it hands it back.
        let mut foreign = false;
        for event in ready {
            match event {
                Ready::ForeignWake => {
                    foreign |= inner.foreign.flag.swap(false, Ordering::SeqCst);
                }
                Ready::Fire(token, mut watched, interest) => {
                    let keep = watched.fire();
                    let closed = inner
                        .io
                        .borrow_mut()
                        .after_fire(token, watched, interest, keep)?;
                    if let Some(job) = closed.on_close {
                        inner.queue_close(job);
                    }
                    // The spent watch is dropped with no borrow held.
                    drop(closed.watched);
                    inner.queues.drain();
                }
            }
        }
        if foreign {
            return Err(NodeError::ForeignWake);
        }
        Ok(())
    }
    // ANCHOR_END: run_poll
}

// ANCHOR: free_run
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
// ANCHOR_END: free_run

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
