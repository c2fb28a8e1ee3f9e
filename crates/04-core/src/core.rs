//! The loop's core: everything that is not the driver, and not generic.
//!
//! A later layer's future must find the loop without knowing its driver type, so the
//! parts futures and callbacks touch — the ready queue, the task slab, extensions,
//! observers, close hooks, the exception handler — live here, in one non-generic
//! `Core` behind an `Rc`. The generic [`EventLoop`](crate::EventLoop) owns a core and a
//! driver, and runs the turns.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Waker;
use std::time::Instant;

use oneloop_task::hooks::{ExceptionSink, panic_message, spawn_into};
use oneloop_task::{ExceptionReport, JoinHandle, Label, TaskId, Tasks, step};

use crate::{
    Callback, CallbackHandle, CancelFlag, Extensions, Handle, LoopError, LoopId, LoopScheduler,
    Observer, Observers, ParkReport, ReadyQueue,
};

/// The message given with a panic caught in a callback or a task step.
pub const CALLBACK_PANICKED: &str = "exception in callback";

/// The message given with a panic caught in a close hook.
pub const CLOSE_HOOK_PANICKED: &str = "exception in close hook";

/// The message given with a panic caught in an observer.
pub const OBSERVER_PANICKED: &str = "exception in observer";

/// The message given with a panic caught while close drops a leftover task, a queued
/// handle or something a layer let go of.
pub const DROP_PANICKED: &str = "exception in drop at close";

/// The label of a report from an observer told of a turn.
const TURN_LABEL: Label = Label::Static("turn");

/// The label of a report from an observer dropped at close.
const OBSERVER_LABEL: Label = Label::Static("observer");

static NEXT_LOOP_ID: AtomicU64 = AtomicU64::new(1);

// ANCHOR: core
/// The non-generic heart of a loop, shared by `Rc` with whatever needs to reach it.
/// (Its close hooks live in its [`Extensions`], where a layer can add one when it is
/// installed.)
pub struct Core {
    id: LoopId,
    pub(crate) ready: ReadyQueue,
    pub(crate) tasks: RefCell<Tasks<LoopScheduler>>,
    scheduler: Arc<LoopScheduler>,
    sink: Rc<ExceptionSink>,
    stopping: Cell<bool>,
    turn: Cell<u64>,
    closed: Cell<bool>,
    extensions: Extensions,
    observers: Observers,
}
// ANCHOR_END: core

impl fmt::Debug for Core {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Core")
            .field("id", &self.id)
            .field("turn", &self.turn.get())
            .field("ready", &self.ready.len())
            .field("tasks", &self.tasks.borrow().len())
            .field("closed", &self.closed.get())
            .finish()
    }
}

impl Core {
    pub(crate) fn new() -> Rc<Self> {
        let id = LoopId(NEXT_LOOP_ID.fetch_add(1, Ordering::Relaxed));
        let scheduler = Arc::new(LoopScheduler::new(id));
        let core = Rc::new(Self {
            id,
            ready: ReadyQueue::new(),
            tasks: RefCell::new(Tasks::new(Arc::clone(&scheduler))),
            scheduler,
            sink: ExceptionSink::new(),
            stopping: Cell::new(false),
            turn: Cell::new(0),
            closed: Cell::new(false),
            extensions: Extensions::new(),
            observers: Observers::new(),
        });
        // A join handle's done callbacks are queued as handles, as asyncio's `call_soon`.
        let weak = Rc::downgrade(&core);
        core.sink.set_deferrer(move |label, callback| {
            if let Some(core) = weak.upgrade() {
                core.call_soon_named(label, callback);
            }
        });
        core
    }

    /// This loop's id.
    pub fn id(&self) -> LoopId {
        self.id
    }

    // ANCHOR: spawn
    /// Spawns `future` as a task and queues its first step (asyncio's `create_task`).
    ///
    /// On a closed loop the task could never run. asyncio's `create_task` raises
    /// "Event loop is closed"; oneloop drops the future at once and returns a join
    /// handle that is already finished with [`JoinError::Cancelled`], so that whoever
    /// awaits it is not left waiting for ever.
    ///
    /// [`JoinError::Cancelled`]: oneloop_task::JoinError::Cancelled
    pub fn spawn<F: Future + 'static>(&self, future: F) -> JoinHandle<F::Output> {
        self.spawn_labelled(future, None)
    }

    /// Like [`spawn`](Self::spawn), with a label for traces and reports.
    pub fn spawn_named<F: Future + 'static>(
        &self,
        label: impl Into<Label>,
        future: F,
    ) -> JoinHandle<F::Output> {
        self.spawn_labelled(future, Some(label.into()))
    }

    fn spawn_labelled<F: Future + 'static>(
        &self,
        future: F,
        label: Option<Label>,
    ) -> JoinHandle<F::Output> {
        let (id, handle) = spawn_into(&self.tasks, &self.sink, future, label);
        if self.is_closed() {
            // Dropping the unstarted task writes `Cancelled` into its handle. The slot
            // is taken out first and dropped with no borrow held: a drop is user code.
            let removed = self.tasks.borrow_mut().remove(id);
            drop(removed);
            return handle;
        }
        // The first step is queued the way every later one is: by the wake path.
        self.wake_here(id);
        handle
    }
    // ANCHOR_END: spawn

    /// Spawns `future` as a task whose first step is *not* queued: it runs when the
    /// returned waker (the task's own) is first woken. For a layer that polls a task's
    /// first step itself before handing the task to the loop (stage 9's eager start).
    /// On a closed loop the future is dropped at once, as with [`spawn`](Self::spawn),
    /// and the waker wakes nothing.
    pub fn spawn_parked_named<F: Future + 'static>(
        &self,
        label: impl Into<Label>,
        future: F,
    ) -> (JoinHandle<F::Output>, Waker) {
        let (id, handle) = spawn_into(&self.tasks, &self.sink, future, Some(label.into()));
        if self.is_closed() {
            let removed = self.tasks.borrow_mut().remove(id);
            drop(removed);
            return (handle, Waker::noop().clone());
        }
        let waker = self
            .tasks
            .borrow()
            .get(id)
            .map(oneloop_task::hooks::TaskSlot::waker)
            .expect("the task was inserted just now");
        (handle, waker)
    }

    /// Queues `callback` to run in a coming turn (asyncio's `call_soon`).
    ///
    /// On a closed loop, where asyncio raises "Event loop is closed", oneloop drops
    /// `callback` at once and returns a handle that is already cancelled.
    pub fn call_soon(&self, callback: impl FnOnce() + 'static) -> CallbackHandle {
        self.call_soon_named("callback", callback)
    }

    /// Like [`call_soon`](Self::call_soon), with a label.
    pub fn call_soon_named(
        &self,
        label: impl Into<Label>,
        callback: impl FnOnce() + 'static,
    ) -> CallbackHandle {
        let label = label.into();
        let flag = CancelFlag::new();
        if self.is_closed() {
            // Nothing will run it: say so through the handle, and drop it now.
            flag.cancel();
            drop(callback);
            return CallbackHandle::new(flag, label);
        }
        self.ready.push(Handle::once(
            label.clone(),
            Box::new(callback),
            flag.clone(),
        ));
        CallbackHandle::new(flag, label)
    }

    /// Queues a shared callback once. Queuing the same `Rc` again allocates nothing.
    /// On a closed loop it queues nothing.
    pub fn call_soon_shared(&self, label: Label, callback: &Rc<dyn Fn()>, cancel: &CancelFlag) {
        if self.is_closed() {
            return;
        }
        self.ready
            .push(Handle::shared(label, Rc::clone(callback), cancel.clone()));
    }

    /// The ready queue (drivers push to it; snapshots read it).
    pub fn ready(&self) -> &ReadyQueue {
        &self.ready
    }

    /// Asks the loop to stop after the current turn (asyncio's `loop.stop()`). The next
    /// turn does not wait: its timeout is zero.
    pub fn stop(&self) {
        self.stopping.set(true);
    }

    /// Whether [`stop`](Self::stop) was called and the loop has not stopped yet.
    #[inline]
    pub fn is_stopping(&self) -> bool {
        self.stopping.get()
    }

    pub(crate) fn take_stopping(&self) -> bool {
        self.stopping.replace(false)
    }

    /// How many turns this loop has begun.
    pub fn turn(&self) -> u64 {
        self.turn.get()
    }

    /// Whether the loop was closed.
    #[inline]
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// How many tasks are live.
    pub fn live_tasks(&self) -> usize {
        self.tasks.borrow().len()
    }

    /// The type map where layers put their shared halves.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// Adds an observer (any number may be added).
    pub fn add_observer(&self, observer: Rc<dyn Observer>) {
        self.observers.add(observer);
    }

    /// Adds a hook run once when the loop closes (after leftover tasks are dropped).
    /// The same list as [`Extensions::add_close_hook`], where layers add theirs.
    pub fn add_close_hook(&self, label: impl Into<Label>, hook: impl FnOnce() + 'static) {
        self.extensions.add_close_hook(label, hook);
    }

    /// Replaces the exception handler (the default writes one line to stderr).
    pub fn set_exception_handler(&self, handler: impl Fn(&ExceptionReport) + 'static) {
        self.sink.set_handler(handler);
    }

    /// Hands a report to the exception handler (for layers that catch failures).
    pub fn report(&self, report: &ExceptionReport) {
        self.sink.report(report);
    }

    /// Drops `value` — user code: a future, a callback and what it captured — with no
    /// borrow held, catching a panic and reporting it as [`DROP_PANICKED`] under
    /// `label`. Close drops every leftover this way; a layer's close hook may too.
    pub fn drop_caught<T>(&self, label: &Label, value: T) {
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(move || drop(value))) {
            self.sink.report(&ExceptionReport {
                message: DROP_PANICKED.to_owned(),
                label: label.clone(),
                panic: panic_message(payload),
            });
        }
    }

    /// The loop stalled: tells the [`Diagnostics`](crate::Diagnostics) hook, if a
    /// layer installed one, and gives the error to return.
    pub(crate) fn stalled(&self) -> LoopError {
        if let Some(diagnostics) = self.extensions.get::<crate::Diagnostics>() {
            (diagnostics.stalled)(self);
        }
        LoopError::Stalled
    }

    // Called three times a turn from the generic loop, which is compiled in the
    // crate that names the driver: `#[inline]` lets it inline there.
    #[inline]
    pub(crate) fn take_foreign_wake(&self) -> Result<(), LoopError> {
        self.scheduler.take_foreign_wake()
    }

    pub(crate) fn any_waker_held_elsewhere(&self) -> bool {
        self.tasks.borrow().any_waker_held_elsewhere()
    }

    /// Starts a turn: bumps the counter and tells the observers.
    pub(crate) fn begin_turn(&self) -> u64 {
        let turn = self.turn.get() + 1;
        self.turn.set(turn);
        self.observers.each(&self.sink, &TURN_LABEL, |observer| {
            observer.turn_started(turn)
        });
        turn
    }

    /// Ends a turn: tells the observers.
    pub(crate) fn end_turn(&self, turn: u64, park: &ParkReport, handles: usize) {
        self.observers.each(&self.sink, &TURN_LABEL, |observer| {
            observer.turn_ended(turn, park, handles);
        });
    }

    // ANCHOR: run_handle
    /// Runs one handle: skipped if cancelled; a panic is caught and reported with the
    /// handle's label, and the loop goes on. No borrow is held while it runs.
    ///
    /// A panic can escape a step only after the task's own future finished (its
    /// panics are caught inside the task): a joiner's waker that panics, or an output
    /// whose drop panics. The future is then gone with the unwind, but its slot still
    /// says a step holds it, so the slot is freed here: no task's slot is leaked.
    pub(crate) fn run_handle(&self, turn: u64, handle: Handle) {
        if handle.is_cancelled() {
            return;
        }
        self.observers.each(&self.sink, &handle.label, |observer| {
            observer.handle_started(turn, &handle);
        });
        let Handle {
            callback, label, ..
        } = handle;
        // Read the clock only when someone is watching.
        let started = self.observers.active().then(Instant::now);
        let outcome = match callback {
            Callback::Step(id) => {
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                    step(&self.tasks, id);
                }));
                if outcome.is_err() {
                    self.free_orphaned_slot(id);
                }
                outcome
            }
            Callback::Once(callback) => panic::catch_unwind(AssertUnwindSafe(callback)),
            Callback::Shared(callback) => panic::catch_unwind(AssertUnwindSafe(|| callback())),
            Callback::SelfCancelling(callback) => {
                panic::catch_unwind(AssertUnwindSafe(|| callback.run()))
            }
        };
        if let Err(payload) = outcome {
            self.sink.report(&ExceptionReport {
                message: CALLBACK_PANICKED.to_owned(),
                label: label.clone(),
                panic: panic_message(payload),
            });
        }
        if let Some(started) = started {
            let elapsed = started.elapsed();
            self.observers.each(&self.sink, &label, |observer| {
                observer.handle_ran(turn, &label, elapsed);
            });
        }
    }
    // ANCHOR_END: run_handle

    /// Frees the slot of a task whose step unwound: the slot still says a step holds
    /// it. Dropping the slot drops the task's future, which the unwind left in place.
    fn free_orphaned_slot(&self, id: TaskId) {
        let orphaned = {
            let mut tasks = self.tasks.borrow_mut();
            match tasks.get(id) {
                Some(task) if task.is_running() => tasks.remove(id),
                _ => None,
            }
        };
        drop(orphaned);
    }

    // ANCHOR: close
    /// Closes the loop: drops every leftover task (Rust's cancellation), drops queued
    /// handles, then runs the close hooks in the order they were added, then lets go
    /// of the observers. Idempotent.
    ///
    /// Every drop is user code and may panic: each is caught and reported
    /// ([`DROP_PANICKED`], [`CLOSE_HOOK_PANICKED`]), and the shutdown goes on, so every
    /// hook runs and nothing unwinds out of `close` (nor out of `drop(loop)`, where an
    /// unwind that is already under way would abort the process).
    pub(crate) fn close(&self) {
        if self.closed.replace(true) {
            return;
        }
        // Closed first: wakes caused by the drops below find a closed loop and stop.
        let leftovers = self.tasks.borrow_mut().drain();
        for task in leftovers {
            let label = task.label().clone();
            self.drop_caught(&label, task);
        }
        for handle in self.ready.drain() {
            let label = handle.label().clone();
            self.drop_caught(&label, handle);
        }
        // A hook may add a hook; run until none is left.
        loop {
            let hooks = self.extensions.take_close_hooks();
            if hooks.is_empty() {
                break;
            }
            for (label, hook) in hooks {
                if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(hook)) {
                    self.sink.report(&ExceptionReport {
                        message: CLOSE_HOOK_PANICKED.to_owned(),
                        label,
                        panic: panic_message(payload),
                    });
                }
            }
        }
        // A closed loop runs no turn: nothing is left to tell the observers.
        let observers = self.observers.take();
        self.drop_caught(&OBSERVER_LABEL, observers);
    }
    // ANCHOR_END: close
}
