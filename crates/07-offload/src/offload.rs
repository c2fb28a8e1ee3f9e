//! `Offload`: the layer's shared half — the loop's handle, its default pool, and the
//! shutdown that closes both.
//!
//! Like every layer, this one has two halves. The parking half,
//! [`OffloadDriver`](crate::OffloadDriver), moves the inbox onto the ready queue after
//! each park. This half is an `Rc<Offload>` in the loop's extensions, where
//! [`to_thread`] finds it through the running loop: it hands out [`LoopHandle`]s, owns
//! the default pool (started on first use, as asyncio's default executor is), and runs
//! asyncio's `shutdown_default_executor` from a close hook.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oneloop_core::hooks::{CALLBACK_PANICKED, panic_message, with_current};
use oneloop_core::{Core, ExceptionReport, Label};

use crate::idle_watch::IdleWatch;
use crate::inbox::{Injected, Remote};
use crate::run_in_executor::submit_to;
use crate::{LoopHandle, OffloadError, Offloaded, ShutdownReport, ThreadPool};

/// How long the close hook waits for the default pool by default. Since Python 3.12,
/// `asyncio.run` passes 300 s (`constants.THREAD_JOIN_TIMEOUT`) to
/// `shutdown_default_executor`; in 3.11 that method takes no timeout and waits for as
/// long as the threads run.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(300);

/// The label of the close hook, and of its report when jobs were left.
pub const SHUTDOWN_LABEL: &str = "shutdown_default_executor";

/// While the loop closes and waits for its default pool, how long it waits at most
/// before it runs the calls that other threads handed it meanwhile (a job that ends
/// ends the wait at once).
const CLOSING_SLICE: Duration = Duration::from_millis(5);

/// The message of the report when the default pool's shutdown left jobs.
pub const JOBS_LEFT: &str = "the default executor did not finish joining its threads in time";

// ANCHOR: offload
/// The offload layer's shared half (in the loop's extensions).
pub struct Offload {
    remote: Arc<Remote>,
    /// The default pool; `None` until first used.
    default_pool: RefCell<Option<ThreadPool>>,
    shutdown_timeout: Cell<Duration>,
    last_shutdown: RefCell<Option<ShutdownReport>>,
    closed: Cell<bool>,
    /// The live handles' count, and the idle park that watches it (`idle_watch.rs`).
    watch: Arc<IdleWatch>,
    /// The most handles any count of the driver's registrations saw since its last
    /// park (so at least what the stall check saw).
    most_handles_counted: Cell<usize>,
}
// ANCHOR_END: offload

impl Offload {
    pub(crate) fn new(remote: Arc<Remote>) -> Self {
        Self {
            remote,
            default_pool: RefCell::new(None),
            shutdown_timeout: Cell::new(DEFAULT_SHUTDOWN_TIMEOUT),
            last_shutdown: RefCell::new(None),
            closed: Cell::new(false),
            watch: Arc::default(),
            most_handles_counted: Cell::new(0),
        }
    }

    /// The layer of the loop running on this thread.
    pub fn current() -> Result<Rc<Offload>, OffloadError> {
        with_current(|core| Self::of(core))
            .flatten()
            .ok_or(OffloadError::NoOffloadLayer)
    }

    /// The layer installed in `core`'s extensions, if any.
    pub fn of(core: &Core) -> Option<Rc<Offload>> {
        core.extensions().get::<Offload>()
    }

    // ANCHOR: attach
    /// Ties the layer to its loop, once, when its driver is installed: task wakers
    /// from other threads now go to the inbox, and closing the loop shuts the default
    /// pool down and closes the inbox.
    pub(crate) fn attach(self: &Rc<Self>, core: &Core) {
        let remote: Arc<dyn oneloop_core::hooks::RemoteWake> = self.remote.clone();
        core.scheduler().set_remote(remote);
        let this = Rc::clone(self);
        core.add_close_hook(SHUTDOWN_LABEL, move || {
            // Close hooks run with the closing loop current: report to its handler.
            if let Some(report) = this.close()
                && let Some(core) = with_current(Rc::clone)
            {
                core.report(&ExceptionReport {
                    message: JOBS_LEFT.to_owned(),
                    label: Label::Static(SHUTDOWN_LABEL),
                    panic: report.to_string(),
                });
            }
        });
    }
    // ANCHOR_END: attach

    /// A `Send + Sync` handle for other threads.
    pub fn handle(&self) -> LoopHandle {
        LoopHandle::new(Arc::clone(&self.remote), Arc::clone(&self.watch))
    }

    /// How many [`LoopHandle`]s are alive: held by other threads, by jobs queued or
    /// running (each job's answer travels through one), or by the loop's own code.
    /// Each may still queue a callback, so the loop does not report a stall while one
    /// is alive (the driver counts them among its registrations).
    ///
    /// Read it before the inbox's count: a thread queues its call, then drops its
    /// handle, so a read that sees the handle gone sees the call in the inbox.
    pub fn handles_held(&self) -> usize {
        self.watch.handles()
    }

    /// [`handles_held`](Self::handles_held), remembered for the park that follows
    /// when it is the most since the last park.
    pub(crate) fn count_handles(&self) -> usize {
        let held = self.handles_held();
        self.most_handles_counted
            .set(held.max(self.most_handles_counted.get()));
        held
    }

    /// Before an idle park that only handles keep waiting: whether it may sleep (a
    /// handle is left, or none was counted since the last park).
    pub(crate) fn begin_idle_park(&self) -> bool {
        self.watch.begin_idle_park(self.most_handles_counted.get())
    }

    /// After any park, before the inbox is taken: the counts start again, and an idle
    /// park (`idle`) ends its announcement.
    pub(crate) fn end_park(&self, idle: bool) {
        self.most_handles_counted.set(0);
        if idle {
            self.watch.end_idle_park();
        }
    }

    /// Items waiting in the inbox.
    #[inline]
    pub fn pending(&self) -> usize {
        self.remote.pending()
    }

    /// Whether the layer was closed with its loop.
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// The default pool, started (empty: threads come with jobs) on first use. Fails
    /// once the loop is closed.
    pub fn default_pool(&self) -> Result<ThreadPool, OffloadError> {
        if self.closed.get() {
            return Err(OffloadError::LoopClosed);
        }
        Ok(self
            .default_pool
            .borrow_mut()
            .get_or_insert_with(ThreadPool::new)
            .clone())
    }

    /// Replaces the default pool (asyncio's `set_default_executor`). The old one, if
    /// any, is not shut down here.
    pub fn set_default_pool(&self, pool: ThreadPool) {
        let old = self.default_pool.replace(Some(pool));
        drop(old);
    }

    /// How long closing the loop waits for the default pool's jobs.
    pub fn shutdown_timeout(&self) -> Duration {
        self.shutdown_timeout.get()
    }

    /// Sets how long closing the loop waits for the default pool's jobs.
    pub fn set_shutdown_timeout(&self, timeout: Duration) {
        self.shutdown_timeout.set(timeout);
    }

    /// What the last shutdown of the default pool left behind (`None` before any, or
    /// when the loop never started its default pool).
    pub fn last_shutdown(&self) -> Option<ShutdownReport> {
        self.last_shutdown.borrow().clone()
    }

    /// Jobs queued or running on the default pool.
    pub fn in_flight(&self) -> usize {
        self.default_pool
            .borrow()
            .as_ref()
            .map_or(0, ThreadPool::in_flight)
    }

    // ANCHOR: run_in_executor
    /// Runs `f` on `pool`, or on the default pool if `None` (asyncio's
    /// `loop.run_in_executor(executor, f)`). The future resolves on this loop.
    pub fn run_in_executor<T, F>(&self, pool: Option<&ThreadPool>, f: F) -> Offloaded<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let pool = match pool {
            Some(pool) => pool.clone(),
            None => match self.default_pool() {
                Ok(pool) => pool,
                Err(error) => return Offloaded::failed(error),
            },
        };
        submit_to(&pool, self.handle(), f)
    }
    // ANCHOR_END: run_in_executor

    // ANCHOR: close
    /// Closes the layer (the close hook calls it): shuts the default pool down, waiting
    /// at most the shutdown timeout, then closes the inbox. Returns the report if jobs
    /// were left. Idempotent.
    pub(crate) fn close(&self) -> Option<ShutdownReport> {
        if self.closed.replace(true) {
            return None;
        }
        let pool = self.default_pool.borrow_mut().take();
        let report = pool.map(|pool| self.shutdown_pool(&pool));
        // What arrived after the pool was done finds the loop closed: drop it.
        self.remote.close();
        self.last_shutdown.replace(report.clone());
        report.filter(|report| !report.is_clean())
    }
    // ANCHOR_END: close

    // ANCHOR: shutdown_pool
    /// Shuts `pool` down, waiting at most the shutdown timeout for its jobs, and runs
    /// the calls other threads hand the loop meanwhile.
    ///
    /// asyncio's loop keeps running while `shutdown_default_executor` joins the
    /// threads, so a job that hands the loop a call and waits for its answer gets it.
    /// This loop is closing, so the wait runs such calls itself, at the latest every
    /// [`CLOSING_SLICE`]; without that, such a job would hold the shutdown until the
    /// timeout. A task's wake finds its task gone, and is dropped.
    fn shutdown_pool(&self, pool: &ThreadPool) -> ShutdownReport {
        let timeout = self.shutdown_timeout.get();
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let report = pool.shutdown(left.min(CLOSING_SLICE));
            self.run_calls();
            if report.is_clean() || left <= CLOSING_SLICE {
                return ShutdownReport { timeout, ..report };
            }
        }
    }
    // ANCHOR_END: shutdown_pool

    /// Runs the callbacks waiting in the inbox, each under a catch: a panic goes to
    /// the loop's exception handler, as a handle's would.
    fn run_calls(&self) {
        if self.remote.pending() == 0 {
            return;
        }
        for item in self.remote.take() {
            let Injected::Callback { label, callback } = item else {
                continue;
            };
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(callback)) {
                let report = ExceptionReport {
                    message: CALLBACK_PANICKED.to_owned(),
                    label: Label::Static(label),
                    panic: panic_message(payload),
                };
                // Close hooks run with the closing loop current.
                with_current(|core| core.report(&report));
            }
        }
    }

    pub(crate) fn remote(&self) -> &Remote {
        &self.remote
    }

    /// Closes the inbox only (the driver's drop, for a loop never attached).
    pub(crate) fn close_inbox(&self) {
        self.remote.close();
    }
}

impl fmt::Debug for Offload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Offload")
            .field("remote", &self.remote)
            .field("default_pool", &self.default_pool.borrow())
            .field("closed", &self.closed.get())
            .finish()
    }
}

// ANCHOR: to_thread
/// Runs `f` on the default pool of the running loop and resolves to its value
/// (asyncio's `asyncio.to_thread(f)`).
///
/// Resolves to an error when `f` panics (with the panic's message), when no loop with
/// an offload layer runs here, or when the loop's pool is shut down.
pub fn to_thread<T, F>(f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    run_in_executor(None, f)
}

/// Runs `f` on `pool` (or the default pool) of the running loop (asyncio's
/// `loop.run_in_executor(executor, f)`).
pub fn run_in_executor<T, F>(pool: Option<&ThreadPool>, f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match Offload::current() {
        Ok(offload) => offload.run_in_executor(pool, f),
        Err(error) => Offloaded::failed(error),
    }
}
// ANCHOR_END: to_thread
