//! `run`'s cleanup, asyncio's way: leftover tasks are cancelled, then awaited so that
//! their cleanup runs, within a bound.
//!
//! Stage 4's `run` closes the loop when main returns, and closing drops every task
//! still alive: abort's cleanup, with no await. `asyncio.run` does more before it
//! closes (`_cancel_all_tasks`: read it with `python3 -c 'import inspect,
//! asyncio.runners as r; print(inspect.getsource(r._cancel_all_tasks))'`). It cancels
//! every task still pending, runs the loop until all of them are done, and then reports
//! each one that ended with a failure other than the cancel.
//!
//! [`cancel_leftovers`] does the same for the tasks of this layer, with the same
//! handles in the same turns: a done callback `_done_callback` per leftover in the turn
//! after it ends, and `_run_until_complete_cb` a turn after the last, which stops the
//! loop. asyncio waits for ever; here a bound on the loop's clock stops the wait, and a
//! task still running then is reported and left to the close.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::rc::{Rc, Weak};
use std::time::Duration;

use oneloop_core::{
    Core, Driver, EventLoop, ExceptionReport, Label, LoopError, RUN_UNTIL_COMPLETE_CB,
};
use oneloop_timers::Timers;

use crate::ctl::Ctl;
use crate::{Error, task_future};

/// The message reported for a leftover task that failed while it was cancelled
/// (asyncio's "unhandled exception during asyncio.run() shutdown").
pub const SHUTDOWN_FAILED: &str = "unhandled failure during shutdown";
/// The message reported for a leftover task still running at the bound.
pub const SHUTDOWN_UNFINISHED: &str = "task still running at the shutdown bound: dropped at close";

/// The tasks of this layer spawned on one loop, kept in its extensions (asyncio's
/// `all_tasks`). Finished tasks are pruned now and then.
#[derive(Default)]
struct AllTasks {
    tasks: RefCell<Vec<Weak<Ctl>>>,
    /// The length after the last prune: the next one comes at twice as many.
    pruned_at: Cell<usize>,
}

/// Puts a newly spawned task in its loop's list.
pub(crate) fn register(ctl: &Rc<Ctl>) {
    oneloop_core::hooks::with_current(|core| {
        let all = core.extensions().get::<AllTasks>().unwrap_or_else(|| {
            let all = Rc::new(AllTasks::default());
            core.extensions().insert(Rc::clone(&all));
            all
        });
        let mut tasks = all.tasks.borrow_mut();
        if tasks.len() >= 2 * all.pruned_at.get().max(32) {
            tasks.retain(|weak| weak.upgrade().is_some_and(|ctl| !ctl.done.get()));
            all.pruned_at.set(tasks.len());
        }
        tasks.push(Rc::downgrade(ctl));
    });
}

/// The tasks of this layer on `core`'s loop that are not finished.
fn pending(core: &Core) -> Vec<Rc<Ctl>> {
    let Some(all) = core.extensions().get::<AllTasks>() else {
        return Vec::new();
    };
    let tasks = all.tasks.borrow();
    tasks
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|ctl| !ctl.done.get())
        .collect()
}

/// What [`cancel_leftovers`] found, each list in the order the tasks were spawned.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Shutdown {
    /// Leftovers that ended cancelled, as asked.
    pub cancelled: Vec<String>,
    /// Leftovers that ended with a value: they caught the cancel and returned.
    pub finished: Vec<String>,
    /// Leftovers that failed while they were cancelled (reported as [`SHUTDOWN_FAILED`]).
    pub failed: Vec<(String, Error)>,
    /// Leftovers still running when the bound passed (reported as
    /// [`SHUTDOWN_UNFINISHED`]; the loop's close drops them).
    pub unfinished: Vec<String>,
}

impl fmt::Display for Shutdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cancelled, {} finished, {} failed, {} unfinished",
            self.cancelled.len(),
            self.finished.len(),
            self.failed.len(),
            self.unfinished.len()
        )
    }
}

// ANCHOR: cancel_leftovers
/// Cancels every task of this layer still pending on `event_loop`, runs the loop until
/// they are all done or `bound` has passed on its clock, and reports what they ended
/// with (asyncio's `_cancel_all_tasks`, with a bound).
///
/// - No leftover: nothing runs, no turn is spent.
/// - Each leftover gets one cancel request; its cleanup may await as usual.
/// - A done callback `_done_callback` counts each one that ends; the last queues
///   `_run_until_complete_cb`, which stops the loop. A timer at `bound` stops it too.
/// - A leftover that failed is reported to the loop's exception handler with
///   [`SHUTDOWN_FAILED`], one still running with [`SHUTDOWN_UNFINISHED`]. Neither is
///   reported again as "never retrieved".
///
/// # Errors
///
/// What running the loop gives ([`LoopError`]).
pub fn cancel_leftovers<D: Driver>(
    event_loop: &mut EventLoop<D>,
    bound: Duration,
) -> Result<Shutdown, LoopError> {
    let core = Rc::clone(event_loop.core());
    let leftovers = pending(&core);
    if leftovers.is_empty() {
        return Ok(Shutdown::default());
    }
    for task in &leftovers {
        // This cleanup reads every failure: none is "never retrieved" as well.
        task.retrieved.set(true);
        task.cancel(None);
    }
    let left = Rc::new(Cell::new(leftovers.len()));
    for task in &leftovers {
        let (left, on_loop) = (Rc::clone(&left), Rc::clone(&core));
        let on_done = move || {
            left.set(left.get() - 1);
            if left.get() == 0 {
                let stopper = Rc::clone(&on_loop);
                on_loop.call_soon_named(RUN_UNTIL_COMPLETE_CB, move || stopper.stop());
            }
        };
        if task.done.get() {
            // Ended inside its own cancel (no await was pending): counted now.
            core.call_soon_named("_done_callback", on_done);
        } else {
            task.done_callbacks
                .borrow_mut()
                .push(("_done_callback", Box::new(on_done)));
        }
    }
    // A loop with no timer layer has no clock to bound the wait with: it waits, as
    // asyncio does.
    let bound_timer = core.extensions().get::<Timers>().map(|timers| {
        let core = Rc::clone(&core);
        timers.call_later_named(bound, "_shutdown_bound", move || core.stop())
    });
    let ran = event_loop.run_forever();
    if let Some(timer) = bound_timer {
        timer.cancel();
    }
    ran?;
    Ok(report(&core, &leftovers))
}
// ANCHOR_END: cancel_leftovers

/// Sorts the leftovers by how they ended, and reports failures and unfinished ones.
fn report(core: &Core, leftovers: &[Rc<Ctl>]) -> Shutdown {
    let mut shutdown = Shutdown::default();
    for task in leftovers {
        let name = task.name.clone();
        if !task.done.get() {
            core.report(&ExceptionReport {
                message: SHUTDOWN_UNFINISHED.to_owned(),
                label: Label::from(name.clone()),
                panic: String::new(),
            });
            shutdown.unfinished.push(name);
        } else if task.ended_cancelled.get() {
            shutdown.cancelled.push(name);
        } else if let Some(error) = task.failure.borrow().clone() {
            core.report(&ExceptionReport {
                message: SHUTDOWN_FAILED.to_owned(),
                label: Label::from(name.clone()),
                panic: error.to_string(),
            });
            shutdown.failed.push((name, error));
        } else {
            shutdown.finished.push(name);
        }
    }
    shutdown
}

// ANCHOR: run_cancelling
/// asyncio's `asyncio.run` on a loop of your choice: runs `main` as a task of this
/// layer named "main", then [`cancel_leftovers`] with `bound`, then closes the loop
/// (which drops whatever is still alive). Returns main's result and the shutdown's.
///
/// # Errors
///
/// What running the loop gives ([`LoopError`]).
pub fn run_cancelling<D, T, F>(
    mut event_loop: EventLoop<D>,
    bound: Duration,
    main: F,
) -> Result<(Result<T, Error>, Shutdown), LoopError>
where
    D: Driver,
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    let (main, task) = task_future("main", main);
    event_loop.run_until_complete(main)?;
    let shutdown = cancel_leftovers(&mut event_loop, bound)?;
    event_loop.close();
    let result = task
        .try_result()
        .unwrap_or(Err(Error::Misuse("main did not finish")));
    Ok((result, shutdown))
}
// ANCHOR_END: run_cancelling
