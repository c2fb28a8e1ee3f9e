//! The thread pool: a queue of jobs under a `Mutex`, and workers waiting on a `Condvar`.
//!
//! asyncio's default executor is a `concurrent.futures.ThreadPoolExecutor`: a queue of
//! work items and up to `min(32, cpu_count + 4)` threads, started one by one as jobs
//! arrive while none is idle; its threads then live until the executor shuts down.
//! This pool keeps that shape, in the manner of smol's `blocking` (which also lets idle
//! threads go):
//!
//! - One `Mutex<PoolState>` holds the queue and the counters; one `Condvar`, `work`,
//!   is where idle workers wait; another, `changed`, is where `shutdown` waits for the
//!   pool to empty.
//! - Threads start lazily: `submit` starts one when there are more queued jobs than
//!   idle workers, up to the limit. An idle worker that waited `keep_alive` with no job
//!   exits (CPython's do not); the next burst starts threads again. The count of live
//!   threads is taken under the lock before a thread starts and given back under the
//!   lock that sees the queue empty, so it never passes the limit and a job queued
//!   while the last worker leaves is still run (see `spawn_worker`).
//! - A job is any `FnOnce() + Send`. A panic in it is caught by the worker (which lives
//!   on); `run_in_executor` catches it earlier, to hand the message to the await.
//! - A worker that dies outside any job breaks the pool: it takes no more jobs, and the
//!   queued ones are dropped unrun. A job of `run_in_executor` answers its future with
//!   `PoolBroken` from that drop (see `Deliver`).
//! - `shutdown(timeout)` stops new jobs, lets the workers finish the queue, and waits
//!   for that at most `timeout`; it reports how many jobs were still running or queued
//!   when it gave up. Those are not killed (a thread cannot be): they finish in the
//!   background, and the workers exit after them.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::OffloadError;
use crate::offloaded::{drop_payload, panic_message};
use crate::worker::worker_loop;

/// A job: any function that may move to another thread.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long an idle worker waits for a job before its thread exits.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(10);

/// asyncio's default `max_workers`: `min(32, cpu_count + 4)`.
///
/// One difference in what is counted: `available_parallelism` honours the process's
/// CPU affinity and cgroup quota, where CPython 3.11's `os.cpu_count()` counts every
/// CPU of the machine (3.13 moved the executor to `os.process_cpu_count()`, which
/// honours affinity).
pub fn default_max_threads() -> usize {
    let cpus = thread::available_parallelism().map_or(1, |n| n.get());
    (cpus + 4).min(32)
}

// ANCHOR: pool_state
/// Whether the pool takes jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Jobs are taken.
    Open,
    /// `shutdown` was called: no new jobs; the workers finish the queue, then exit.
    ShutDown,
    /// A worker died outside any job (a bug in the worker loop): no new jobs.
    Broken(String),
}

/// Everything the pool's threads share, under one lock.
pub(crate) struct PoolState {
    /// Jobs not yet taken, oldest first.
    pub(crate) queue: VecDeque<Job>,
    pub(crate) phase: Phase,
    /// Worker threads alive.
    pub(crate) threads: usize,
    /// Workers waiting on `work` right now.
    pub(crate) idle: usize,
    /// Jobs being run right now.
    pub(crate) running: usize,
    /// Jobs that panicked (caught by their worker).
    pub(crate) panicked: usize,
}

/// The pool's shared half.
pub(crate) struct PoolShared {
    pub(crate) state: Mutex<PoolState>,
    /// Idle workers wait here for a job or for shutdown.
    pub(crate) work: Condvar,
    /// `shutdown` waits here; workers notify it whenever a job ends or a thread exits.
    pub(crate) changed: Condvar,
    pub(crate) keep_alive: Duration,
    pub(crate) max_threads: usize,
}
// ANCHOR_END: pool_state

impl PoolShared {
    /// Locks the state. Jobs never run under this lock, so poisoning can only come
    /// from a bug in the pool itself; the counters are still consistent then.
    pub(crate) fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What a shutdown left behind (since Python 3.12, asyncio warns "The executor did
/// not finishing joining its threads within N seconds"; 3.11 waits without a limit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShutdownReport {
    /// How long shutdown was allowed to wait.
    pub timeout: Duration,
    /// Jobs still running when it stopped waiting.
    pub running: usize,
    /// Jobs still queued, not started, when it stopped waiting (they will still run).
    pub queued: usize,
}

impl ShutdownReport {
    /// Whether every job had finished in time.
    pub fn is_clean(&self) -> bool {
        self.running == 0 && self.queued == 0
    }

    /// Jobs left unfinished: running plus queued.
    pub fn left(&self) -> usize {
        self.running + self.queued
    }
}

impl fmt::Display for ShutdownReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_clean() {
            write!(f, "the thread pool shut down with every job finished")
        } else {
            write!(
                f,
                "the thread pool did not finish its jobs within {:?}: {} still running, \
                 {} queued; they finish in the background",
                self.timeout, self.running, self.queued
            )
        }
    }
}

// ANCHOR: thread_pool
/// A pool of worker threads that run blocking jobs (asyncio's `ThreadPoolExecutor`).
/// Cloning gives another handle to the same pool.
#[derive(Clone)]
pub struct ThreadPool {
    shared: Arc<PoolShared>,
}
// ANCHOR_END: thread_pool

impl ThreadPool {
    /// A pool of at most [`default_max_threads`] threads.
    pub fn new() -> Self {
        Self::with_limits(default_max_threads(), DEFAULT_KEEP_ALIVE)
    }

    /// A pool of at most `max_threads` threads (at least one), whose idle threads exit
    /// after `keep_alive`.
    pub fn with_limits(max_threads: usize, keep_alive: Duration) -> Self {
        Self {
            shared: Arc::new(PoolShared {
                state: Mutex::new(PoolState {
                    queue: VecDeque::new(),
                    phase: Phase::Open,
                    threads: 0,
                    idle: 0,
                    running: 0,
                    panicked: 0,
                }),
                work: Condvar::new(),
                changed: Condvar::new(),
                keep_alive,
                max_threads: max_threads.max(1),
            }),
        }
    }

    // ANCHOR: submit
    /// Queues `job` for a worker, starting a thread if every live one is busy and the
    /// limit allows. Fails once the pool is shut down or broken.
    pub fn submit(&self, job: impl FnOnce() + Send + 'static) -> Result<(), OffloadError> {
        let mut state = self.shared.lock();
        match &state.phase {
            Phase::Open => {}
            Phase::ShutDown => return Err(OffloadError::PoolShutDown),
            Phase::Broken(why) => return Err(OffloadError::PoolBroken(why.clone())),
        }
        state.queue.push_back(Box::new(job));
        // Each idle worker takes one job; start a thread for any job left over.
        if state.queue.len() > state.idle && state.threads < self.shared.max_threads {
            state.threads += 1;
            if let Err(error) = spawn_worker(Arc::clone(&self.shared)) {
                state.threads -= 1;
                if state.threads == 0 {
                    // Nobody will ever take it: give the job back as an error.
                    let job = state.queue.pop_back();
                    drop(state);
                    drop(job);
                    return Err(OffloadError::PoolBroken(format!(
                        "no worker thread could be started: {error}"
                    )));
                }
            }
        }
        self.shared.work.notify_one();
        Ok(())
    }
    // ANCHOR_END: submit

    // ANCHOR: shutdown
    /// Takes no more jobs, and waits at most `timeout` for the queued and running ones
    /// to finish (asyncio's `shutdown_default_executor(timeout)`). Idempotent.
    pub fn shutdown(&self, timeout: Duration) -> ShutdownReport {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        if state.phase == Phase::Open {
            state.phase = Phase::ShutDown;
        }
        // Idle workers wake, see an empty queue and a closed pool, and exit.
        self.shared.work.notify_all();
        loop {
            // No thread left means nothing more will finish: a worker that died outside
            // any job may even have left its job counted as running.
            if (state.queue.is_empty() && state.running == 0) || state.threads == 0 {
                break;
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        ShutdownReport {
            timeout,
            running: state.running.min(state.threads),
            queued: state.queue.len(),
        }
    }
    // ANCHOR_END: shutdown

    /// Whether the pool still takes jobs.
    pub fn is_open(&self) -> bool {
        self.shared.lock().phase == Phase::Open
    }

    /// Jobs queued or running.
    pub fn in_flight(&self) -> usize {
        let state = self.shared.lock();
        state.queue.len() + state.running
    }

    /// Worker threads alive.
    pub fn threads(&self) -> usize {
        self.shared.lock().threads
    }

    /// The most threads this pool starts.
    pub fn max_threads(&self) -> usize {
        self.shared.max_threads
    }

    /// Jobs whose panic a worker caught.
    pub fn panicked(&self) -> usize {
        self.shared.lock().panicked
    }
}

impl Default for ThreadPool {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("ThreadPool")
            .field("phase", &state.phase)
            .field("threads", &state.threads)
            .field("idle", &state.idle)
            .field("running", &state.running)
            .field("queued", &state.queue.len())
            .finish()
    }
}

/// Starts one worker thread. The thread's count was already taken by the caller; the
/// thread gives it back when it exits, however it exits.
///
/// The count is given back under the same lock that sees the queue empty. The worker
/// loop returns with its lock released, and a `submit` can slip in before this thread
/// locks again: it still counts this thread as alive, so at the limit it starts no
/// other, and its job would wait for ever. So a worker that finds a job here goes back
/// to work instead of exiting.
fn spawn_worker(shared: Arc<PoolShared>) -> io::Result<()> {
    thread::Builder::new()
        .name("oneloop-pool".to_owned())
        .spawn(move || {
            loop {
                // A failure's payload is dropped here, before the lock is taken: its
                // drop is user code (see `panic_message`).
                let failure = panic::catch_unwind(AssertUnwindSafe(|| worker_loop(&shared)))
                    .err()
                    .map(panic_message);
                let mut state = shared.lock();
                let orphans = match failure {
                    // A job queued since the worker loop let go of the lock: run it.
                    None if !state.queue.is_empty() => continue,
                    None => VecDeque::new(),
                    Some(why) => {
                        // The worker loop itself failed: stop taking jobs, and give up
                        // the queued ones (no worker may be left to run them).
                        state.phase =
                            Phase::Broken(format!("a worker thread died outside any job: {why}"));
                        mem::take(&mut state.queue)
                    }
                };
                state.threads -= 1;
                shared.changed.notify_all();
                drop(state);
                drop_orphans(orphans);
                return;
            }
        })
        .map(drop)
}

/// Drops the jobs a broken pool gave up, so that whoever waits on them learns it now:
/// a plain job drops what it captured (a channel's sender, say), and the job of
/// `run_in_executor` drops its `Deliver`, which answers its future with `PoolBroken`.
///
/// This runs after the worker's `catch_unwind` has returned, not while its panic
/// unwinds: a job's drop that panics then is only a panic, not an abort. Each job is
/// dropped under its own `catch_unwind`, so that such a panic neither skips the jobs
/// after it nor drops them while unwinding (as a `VecDeque` dropped whole would).
fn drop_orphans(orphans: VecDeque<Job>) {
    for job in orphans {
        // A panic here has been reported by the panic hook already; the next job's
        // answer matters more than this one's failure to give its own.
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(move || drop(job))) {
            drop_payload(payload);
        }
    }
}
