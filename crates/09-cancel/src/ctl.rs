//! The control block every task of this layer shares with its handles: the cancel
//! bookkeeping of an asyncio `Task`, without its result.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Waker;

use oneloop_core::hooks::{LoopId, with_current};

/// A done callback and its label.
pub(crate) type DoneCallback = (&'static str, Box<dyn FnOnce()>);

/// A task awaiting another, as the awaited task keeps it.
pub(crate) struct Joiner {
    /// How many done callbacks were added before it first waited: asyncio's awaiting
    /// task is one more done callback, so the two wake in the order they came.
    pub(crate) before: usize,
    pub(crate) waker: Waker,
    pub(crate) on: WakeOn,
}

/// Which ends of a task wake a [`Joiner`], from the loosest to the strictest: a
/// combinator that waits for a failure or for the last task is woken by nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum WakeOn {
    /// Any end.
    End,
    /// An end with an error, a cancel included (a gather that does not collect).
    Error,
    /// An end with an error that is not a cancel (`wait`'s `FirstException`).
    Failure,
}

// ANCHOR: ctl
/// The cancel state of one task (asyncio's `_must_cancel`, `_cancel_message`,
/// `_num_cancels_requested`, `_fut_waiter`), plus what abort needs.
pub(crate) struct Ctl {
    pub(crate) name: String,
    /// A request not yet delivered at a cancellation point.
    pub(crate) must_cancel: Cell<bool>,
    pub(crate) message: RefCell<Option<String>>,
    /// The undelivered request came while the task waited on something: asyncio's
    /// first request cancels that future with its message, so a later request does
    /// not replace it.
    pub(crate) keeps_message: Cell<bool>,
    /// How many requests are pending (`cancelling()`).
    pub(crate) requests: Cell<u32>,
    /// How many steps the task began; a request records the count when it is made.
    pub(crate) steps: Cell<u64>,
    pub(crate) requested_at: Cell<u64>,
    /// The tasks this task awaits right now: a request is passed on to them.
    pub(crate) waiting_on: RefCell<Vec<Rc<Ctl>>>,
    /// Set by `abort` (from any thread): the next step drops the future.
    pub(crate) aborted: Arc<AtomicBool>,
    /// The waker the task's future is polled with, refreshed at every step (another
    /// thread may take it): it wakes the loop's task and sets `woken`.
    pub(crate) waker: Arc<Mutex<Option<Waker>>>,
    /// Set by every wake of the task, cleared when a step begins: whether the task's
    /// next step is queued, or it waits on something (asyncio's pending `_fut_waiter`).
    pub(crate) woken: Arc<AtomicBool>,
    /// Set while the task's own step runs.
    pub(crate) stepping: Cell<bool>,
    pub(crate) done: Cell<bool>,
    /// When the task finished, as a count unique in the process (0: not yet): what
    /// `as_completed` orders by.
    pub(crate) finished_seq: Cell<u64>,
    /// False once the task's handle is dropped.
    pub(crate) handle_alive: Cell<bool>,
    /// Set once someone read the task's failure (an await, a group).
    pub(crate) retrieved: Cell<bool>,
    pub(crate) ended_cancelled: Cell<bool>,
    /// The failure the task ended with, when it was not a cancel (for shutdown).
    pub(crate) failure: RefCell<Option<crate::Error>>,
    /// The tasks awaiting this one, woken when it ends.
    pub(crate) joiners: RefCell<Vec<Joiner>>,
    pub(crate) done_callbacks: RefCell<Vec<DoneCallback>>,
    /// What a view of the task tree reads: see [`Links`].
    pub(crate) links: Links,
}
// ANCHOR_END: ctl

/// What a view of the task tree reads beyond the cancel state. Nothing here is read
/// by the loop itself; it is kept up to date at the same places as `waiting_on`.
#[derive(Default)]
pub(crate) struct Links {
    /// Unique in the process, in spawn order.
    pub(crate) id: u64,
    /// How the task awaits the tasks in `waiting_on`: `"join"`, or `"gather"`.
    pub(crate) via: Cell<&'static str>,
    /// Tasks this task awaits without passing a cancel on (shield, wait), and how.
    pub(crate) watching: RefCell<Vec<(Weak<Ctl>, &'static str)>>,
    /// The task whose group spawned this one: it awaits this task until it ends.
    pub(crate) group_parent: RefCell<Option<Weak<Ctl>>>,
    /// The state of the loop whose list of tasks holds this one, once it is there.
    pub(crate) home: RefCell<Option<Rc<LoopTasks>>>,
}

static NEXT_TASK_ID: AtomicU64 = AtomicU64::new(1);
static NEXT_FINISH: AtomicU64 = AtomicU64::new(1);

/// This layer's state on one loop, in the loop's extensions: its tasks, weakly
/// (asyncio's `_all_tasks`), and the task whose step runs now (asyncio keeps that per
/// loop too, in `_current_tasks`). Per loop, not per thread, like every layer's state:
/// two loops on one thread each name their own current task.
#[derive(Default)]
pub(crate) struct LoopTasks {
    all: RefCell<Vec<Weak<Ctl>>>,
    current: RefCell<Option<Rc<Ctl>>>,
    /// How many times this table was looked up in the loop's extensions.
    searches: Cell<u64>,
}

/// The running loop's [`LoopTasks`] if there is one, found in its extensions (a
/// search, counted).
fn search_loop_tasks() -> Option<Rc<LoopTasks>> {
    let tasks = with_current(|core| core.extensions().get::<LoopTasks>()).flatten()?;
    tasks.searches.set(tasks.searches.get() + 1);
    Some(tasks)
}

/// The running loop's [`LoopTasks`], made on first use.
fn running_loop_tasks() -> Option<Rc<LoopTasks>> {
    search_loop_tasks().or_else(|| {
        with_current(|core| {
            let tasks = Rc::new(LoopTasks::default());
            core.extensions().insert(Rc::clone(&tasks));
            tasks
        })
    })
}

/// What a cancellation point keeps from its first poll: its loop's [`LoopTasks`],
/// with the loop's id, so that a later poll reads the running task without a search.
#[derive(Default)]
pub(crate) struct PointHome(Option<(LoopId, Rc<LoopTasks>)>);

impl fmt::Debug for PointHome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PointHome")
            .field(&self.0.as_ref().map(|(id, _)| *id))
            .finish()
    }
}

impl PointHome {
    /// Whether no request waits to be delivered to the running task: then
    /// [`deliver`](crate::deliver) would take none, and only poll the inner future.
    /// The table is looked up at the first poll on a loop, and kept.
    pub(crate) fn no_request_waiting(&mut self) -> bool {
        let Some(running) = with_current(|core| core.id()) else {
            // No loop: no current task, nothing to deliver.
            return true;
        };
        let tasks = match &self.0 {
            Some((id, tasks)) if *id == running => tasks,
            _ => {
                let Some(tasks) = search_loop_tasks() else {
                    // No task of this layer on this loop yet.
                    return true;
                };
                &self.0.insert((running, tasks)).1
            }
        };
        tasks
            .current
            .borrow()
            .as_ref()
            .is_none_or(|task| !task.must_cancel.get())
    }
}

/// How many times this layer has looked for its table of tasks in the running
/// loop's extensions (a short list compared by type): what finding the current task
/// costs beyond a read. 0 outside a loop, or on a loop with no task of this layer.
pub fn task_searches() -> u64 {
    with_current(|core| core.extensions().get::<LoopTasks>())
        .flatten()
        .map_or(0, |tasks| tasks.searches.get())
}

/// The [`LoopTasks`] of `ctl`'s loop. The first time, inside a loop, it puts `ctl` in
/// that loop's list of tasks and keeps the loop's state in `ctl`, so a step finds it
/// without a lookup. Outside a loop it is `None`, and the task's first step comes here
/// again.
pub(crate) fn home(ctl: &Rc<Ctl>) -> Option<Rc<LoopTasks>> {
    if let Some(home) = ctl.links.home.borrow().as_ref() {
        return Some(Rc::clone(home));
    }
    let home = running_loop_tasks()?;
    *ctl.links.home.borrow_mut() = Some(Rc::clone(&home));
    let mut list = home.all.borrow_mut();
    if list.len() == list.capacity() {
        // Forget finished tasks before the list would grow: it stays about as long
        // as the number of live tasks.
        list.retain(|task| task.upgrade().is_some_and(|task| !task.done.get()));
    }
    list.push(Rc::downgrade(ctl));
    drop(list);
    Some(home)
}

/// Puts `ctl` in the running loop's list of tasks, once. Outside a loop it waits for
/// the task's first step, which comes here again.
pub(crate) fn register(ctl: &Rc<Ctl>) {
    // Only the registration is wanted here; a step keeps the state it returns.
    drop(home(ctl));
}

/// The unfinished tasks of this layer on the running loop, in spawn order (asyncio's
/// `all_tasks()`). Empty outside a loop.
pub fn all_tasks() -> Vec<TaskRef> {
    let Some(tasks) = search_loop_tasks() else {
        return Vec::new();
    };
    let list = tasks.all.borrow();
    let mut tasks: Vec<TaskRef> = list
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|ctl| !ctl.done.get())
        .map(|ctl| TaskRef { ctl })
        .collect();
    tasks.sort_by_key(TaskRef::id);
    tasks
}

impl fmt::Debug for Ctl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctl")
            .field("name", &self.name)
            .field("must_cancel", &self.must_cancel.get())
            .field("requests", &self.requests.get())
            .field("done", &self.done.get())
            .finish_non_exhaustive()
    }
}

/// Makes a task its loop's current task for one step, and restores the previous one
/// when the step ends (or unwinds). The loop's table is borrowed from the task's
/// future, which keeps it from its first step: a step neither searches nor clones it.
pub(crate) struct CurrentGuard<'a>(Option<(&'a LoopTasks, Option<Rc<Ctl>>)>);

impl<'a> CurrentGuard<'a> {
    /// `home` is what [`home`] gave for `ctl` (`None` outside a loop).
    pub(crate) fn enter(ctl: &Rc<Ctl>, home: Option<&'a LoopTasks>) -> Self {
        // A new step awaits nothing yet, as `waiting_on` is cleared by the step.
        ctl.links.via.set("join");
        ctl.links.watching.borrow_mut().clear();
        Self(home.map(|home| {
            let previous = home.current.replace(Some(Rc::clone(ctl)));
            (home, previous)
        }))
    }
}

impl Drop for CurrentGuard<'_> {
    fn drop(&mut self) {
        if let Some((home, previous)) = self.0.take() {
            let stepped = home.current.replace(previous);
            // Dropped with no borrow held.
            drop(stepped);
        }
    }
}

/// The task whose step runs now on the running loop, if any.
pub(crate) fn current_ctl() -> Option<Rc<Ctl>> {
    let tasks = search_loop_tasks()?;
    tasks.current.borrow().clone()
}

impl Ctl {
    /// Puts `awaited` among the tasks this one awaits, once: a join or a gather that
    /// waits on it now.
    pub(crate) fn wait_on(&self, awaited: &Rc<Ctl>) {
        let mut waiting_on = self.waiting_on.borrow_mut();
        if !waiting_on.iter().any(|ctl| Rc::ptr_eq(ctl, awaited)) {
            waiting_on.push(Rc::clone(awaited));
        }
    }

    /// Takes `awaited` out again: the join or gather that waited on it ended, or was
    /// dropped (a select's loser), and a later cancel of this task must not go to it.
    pub(crate) fn stop_waiting_on(&self, awaited: &Ctl) {
        let mut waiting_on = self.waiting_on.borrow_mut();
        if let Some(at) = waiting_on
            .iter()
            .position(|ctl| std::ptr::eq(&**ctl, awaited))
        {
            waiting_on.remove(at);
        }
    }
}

impl Ctl {
    pub(crate) fn new(name: String) -> Rc<Self> {
        Rc::new(Self {
            name,
            must_cancel: Cell::new(false),
            message: RefCell::new(None),
            keeps_message: Cell::new(false),
            requests: Cell::new(0),
            steps: Cell::new(0),
            requested_at: Cell::new(0),
            waiting_on: RefCell::new(Vec::new()),
            aborted: Arc::new(AtomicBool::new(false)),
            waker: Arc::new(Mutex::new(None)),
            // A new task's first step is queued.
            woken: Arc::new(AtomicBool::new(true)),
            stepping: Cell::new(false),
            done: Cell::new(false),
            finished_seq: Cell::new(0),
            handle_alive: Cell::new(true),
            retrieved: Cell::new(false),
            ended_cancelled: Cell::new(false),
            failure: RefCell::new(None),
            joiners: RefCell::new(Vec::new()),
            done_callbacks: RefCell::new(Vec::new()),
            links: Links {
                id: NEXT_TASK_ID.fetch_add(1, Ordering::Relaxed),
                via: Cell::new("join"),
                ..Links::default()
            },
        })
    }

    /// Marks the task done, and when, in the order tasks finish.
    pub(crate) fn set_done(&self) {
        self.done.set(true);
        self.finished_seq
            .set(NEXT_FINISH.fetch_add(1, Ordering::Relaxed));
    }

    pub(crate) fn wake(&self) {
        let waker = self
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    // ANCHOR: cancel
    /// asyncio's `Task.cancel`: false on a finished task; else count the request, pass
    /// it on to the tasks this one awaits (if one of them takes it, that is enough:
    /// its end wakes this task), or mark it undelivered and queue a step.
    ///
    /// The message delivered is the first request's when the task waited on something
    /// at that request (asyncio cancels the awaited future with it), else the latest.
    /// A request made during the task's own step queues nothing: the step's end does.
    pub(crate) fn cancel(&self, message: Option<String>) -> bool {
        if self.done.get() {
            return false;
        }
        self.requests.set(self.requests.get() + 1);
        let waiting_on = self.waiting_on.borrow().clone();
        let mut passed_on = false;
        for awaited in &waiting_on {
            passed_on |= awaited.cancel(message.clone());
        }
        if passed_on {
            return true;
        }
        if !self.must_cancel.replace(true) {
            self.requested_at.set(self.steps.get());
            let waiting = !self.stepping.get() && !self.woken.load(Ordering::Relaxed);
            self.keeps_message.set(waiting);
            *self.message.borrow_mut() = message;
        } else if !self.keeps_message.get() {
            *self.message.borrow_mut() = message;
        }
        if !self.stepping.get() {
            self.wake();
        }
        true
    }
    // ANCHOR_END: cancel

    /// The end of a step that suspended with a request undelivered. asyncio's step
    /// ends by cancelling the future the task now awaits, which keeps the message;
    /// a task that queued its own next step (a bare yield) awaits none. A request made
    /// during the step queues the next one now, behind what the step queued.
    pub(crate) fn suspended_with_request(&self, waker: &Waker) {
        self.keeps_message.set(!self.woken.load(Ordering::Relaxed));
        if self.requested_at.get() == self.steps.get() {
            waker.wake_by_ref();
        }
    }

    /// Takes the undelivered request, if any, made before the step now running: the
    /// cancellation point that calls this delivers it. A request made during this
    /// step (a task cancelling itself) waits for the next step, as in asyncio, where
    /// it is thrown in when the task resumes.
    pub(crate) fn take_request(&self) -> Option<Option<String>> {
        if self.must_cancel.get() && self.requested_at.get() < self.steps.get() {
            self.must_cancel.set(false);
            Some(self.message.borrow().clone())
        } else {
            None
        }
    }

    /// Takes the undelivered request whenever it was made (the task's end).
    pub(crate) fn take_any_request(&self) -> Option<Option<String>> {
        if self.must_cancel.replace(false) {
            Some(self.message.borrow().clone())
        } else {
            None
        }
    }

    /// Takes one request back; the last one taken back also drops a request not yet
    /// delivered, as asyncio does since 3.13. In 3.11 that request stays, but every
    /// await there is a cancellation point, so a scope's own request is delivered
    /// inside the scope. Here a body may await what is none (a stage 5 sleep, I/O),
    /// and a timeout or group that took its request back would otherwise leave it to
    /// cancel the task's next, unrelated cancellation point.
    pub(crate) fn uncancel(&self) -> u32 {
        let left = self.requests.get().saturating_sub(1);
        self.requests.set(left);
        if left == 0 {
            self.must_cancel.set(false);
        }
        left
    }

    /// Reports a failure nobody will read (asyncio's "Task exception was never
    /// retrieved"). A cancel is not a failure.
    pub(crate) fn report_unretrieved(&self, error: &crate::Error) {
        if error.is_cancelled() || self.retrieved.get() {
            return;
        }
        self.report_never_retrieved(error);
    }

    /// Reports `error` as a failure of this task that nobody will read, whoever read
    /// it before (a group whose owner is gone read it for nobody).
    pub(crate) fn report_never_retrieved(&self, error: &crate::Error) {
        let report = oneloop_core::ExceptionReport {
            message: oneloop_core::NEVER_RETRIEVED.to_owned(),
            label: oneloop_core::Label::from(self.name.clone()),
            panic: error.to_string(),
        };
        oneloop_core::hooks::with_current(|core| core.report(&report));
    }

    /// Reports the failure this finished task ended with, if any, as never retrieved,
    /// and marks it read so that no other path reports it again.
    pub(crate) fn report_own_failure(&self) {
        let failure = self.failure.borrow().clone();
        if let Some(error) = failure {
            self.report_never_retrieved(&error);
            self.retrieved.set(true);
        }
    }

    /// Notes that this task awaits `task` without passing a cancel on to it.
    pub(crate) fn watch(&self, task: &Rc<Ctl>, how: &'static str) {
        let mut watching = self.links.watching.borrow_mut();
        if !watching
            .iter()
            .any(|(w, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(task)))
        {
            watching.push((Rc::downgrade(task), how));
        }
    }

    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }
}

// ANCHOR: task_ref
/// A task of this layer seen without its result type: enough to cancel it and to read
/// its bookkeeping. [`current`] gives the running one.
#[derive(Clone, Debug)]
pub struct TaskRef {
    pub(crate) ctl: Rc<Ctl>,
}
// ANCHOR_END: task_ref

impl TaskRef {
    /// Requests a cancel (asyncio's `Task.cancel(msg)`). Returns false if the task is
    /// finished. The request is delivered at the task's next cancellation point.
    pub fn cancel(&self, message: Option<&str>) -> bool {
        self.ctl.cancel(message.map(str::to_owned))
    }

    /// How many cancel requests are pending (asyncio's `cancelling()`).
    pub fn cancelling(&self) -> u32 {
        self.ctl.requests.get()
    }

    /// Whether a request waits to be delivered at the task's next cancellation point
    /// (asyncio's `_must_cancel`). False when every request went on to the tasks this
    /// one awaits: the task itself is not cancelled then, whatever
    /// [`cancelling`](Self::cancelling) counts.
    pub fn must_cancel(&self) -> bool {
        self.ctl.must_cancel.get()
    }

    /// Takes one request back and returns how many are left (asyncio's `uncancel()`).
    /// The last one taken back also drops a request not yet delivered (as 3.13 does).
    pub fn uncancel(&self) -> u32 {
        self.ctl.uncancel()
    }

    /// Whether the task finished.
    pub fn is_done(&self) -> bool {
        self.ctl.done.get()
    }

    /// Whether the task ended cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.ctl.ended_cancelled.get()
    }

    /// The task's name.
    pub fn name(&self) -> &str {
        &self.ctl.name
    }
}

/// What a view of the task tree reads.
impl TaskRef {
    /// The task's id: unique in the process, in spawn order.
    pub fn id(&self) -> u64 {
        self.ctl.links.id
    }

    /// How many steps the task began.
    pub fn steps(&self) -> u64 {
        self.ctl.steps.get()
    }

    /// The tasks this task awaits right now, each with how (`"join"`, `"gather"`,
    /// `"shield"`, `"wait"`, `"as_completed"`), as its last step left them. A task of
    /// its group is not here: see [`group_parent`](Self::group_parent).
    pub fn awaits(&self) -> Vec<(TaskRef, &'static str)> {
        let via = self.ctl.links.via.get();
        let mut awaits: Vec<(TaskRef, &'static str)> = self
            .ctl
            .waiting_on
            .borrow()
            .iter()
            .map(|ctl| {
                (
                    TaskRef {
                        ctl: Rc::clone(ctl),
                    },
                    via,
                )
            })
            .collect();
        for (watched, how) in self.ctl.links.watching.borrow().iter() {
            if let Some(ctl) = watched.upgrade() {
                awaits.push((TaskRef { ctl }, how));
            }
        }
        awaits
    }

    /// The task that runs the group this task was spawned in, if any: it awaits this
    /// one until it ends.
    pub fn group_parent(&self) -> Option<TaskRef> {
        let parent = self.ctl.links.group_parent.borrow().as_ref()?.upgrade()?;
        Some(TaskRef { ctl: parent })
    }

    /// Whether `waker` would wake this task (a leaf's waker, found in a layer's table).
    pub fn will_wake(&self, waker: &Waker) -> bool {
        self.ctl
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|mine| mine.will_wake(waker))
    }
}

/// The task of this layer running on this thread (asyncio's `current_task()`), if any.
pub fn current() -> Option<TaskRef> {
    current_ctl().map(|ctl| TaskRef { ctl })
}
