//! Spawning a task of this layer, its handle, abort, and awaiting it.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use oneloop_core::hooks::{panic_message, with_current};
use oneloop_offload::LoopHandle;

use crate::ctl::{Ctl, CurrentGuard, Joiner, LoopTasks, WakeOn, current_ctl, home};
use crate::eager::{eager_by_default, spawn_eager_named};
use crate::error::{LOOP_CLOSED, RESULT_TAKEN};
use crate::shutdown::register;
use crate::step_scope::{StepScope, in_scope, scope_for_new_task};
use crate::{Error, TaskRef};

/// Where a task's result is.
pub(crate) enum Outcome<T> {
    Running,
    Done(Result<T, Error>),
    Taken,
}

// ANCHOR: driven
/// A task's future as the loop holds it: the user's future, boxed, and the shared
/// state its handle reads. Each poll is one step of the task.
pub struct TaskFuture<T, F> {
    ctl: Rc<Ctl>,
    future: Option<Pin<Box<F>>>,
    outcome: Rc<RefCell<Outcome<T>>>,
    /// The loop's waker for this task, and the [`StepWake`] around it.
    wakers: Option<(Waker, Waker)>,
    /// The task's loop's table of tasks, kept from the first step that found it.
    home: Option<Rc<LoopTasks>>,
    /// What a later layer wraps each step in (stage 10: the task's context).
    scope: Option<Rc<dyn StepScope>>,
}
// ANCHOR_END: driven

/// The waker a task's future is polled with: it notes the wake in the task's
/// `woken` flag, then wakes the loop's task. A cancel reads the flag to tell a task
/// that waits on something from one whose step is queued.
struct StepWake {
    woken: Arc<AtomicBool>,
    task: Waker,
}

impl Wake for StepWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Relaxed);
        self.task.wake_by_ref();
    }
}

impl<T, F: Future<Output = Result<T, Error>>> TaskFuture<T, F> {
    fn finish(&mut self, result: Result<T, Error>) {
        finish(&self.ctl, &self.outcome, result);
    }

    /// Ends the task with a panic its step raised: a failure like any other.
    pub(crate) fn end_panicked(&mut self, message: String) {
        drop(self.future.take());
        self.finish(Err(Error::Panicked(message)));
    }
}

fn finish<T>(ctl: &Rc<Ctl>, outcome: &RefCell<Outcome<T>>, result: Result<T, Error>) {
    ctl.ended_cancelled
        .set(result.as_ref().is_err_and(Error::is_cancelled));
    if let Err(error) = &result
        && !error.is_cancelled()
    {
        *ctl.failure.borrow_mut() = Some(error.clone());
    }
    ctl.set_done();
    ctl.waiting_on.borrow_mut().clear();
    // A failure nobody can read any more is reported now; one that a done callback
    // may still read (a group's `_on_task_done`) is looked at again right after the
    // last callback, inside its handle (no handle of its own: the turns stay asyncio's).
    let mut callbacks = mem::take(&mut *ctl.done_callbacks.borrow_mut());
    if let (false, Err(error)) = (ctl.handle_alive.get(), &result) {
        match callbacks.pop() {
            None => ctl.report_unretrieved(error),
            Some((label, last)) => {
                let (ctl, error) = (Rc::clone(ctl), error.clone());
                callbacks.push((
                    label,
                    Box::new(move || {
                        last();
                        ctl.report_unretrieved(&error);
                    }),
                ));
            }
        }
    }
    let wakes = match &result {
        Ok(_) => WakeOn::End,
        Err(error) if error.is_cancelled() => WakeOn::Error,
        Err(_) => WakeOn::Failure,
    };
    *outcome.borrow_mut() = Outcome::Done(result);
    // Done callbacks run in a coming turn, as asyncio's do (`call_soon`), and the
    // awaiting tasks' steps are queued among them, each where it first waited.
    let mut joiners = mem::take(&mut *ctl.joiners.borrow_mut())
        .into_iter()
        .filter(|joiner| joiner.on <= wakes)
        .peekable();
    for (index, (label, callback)) in callbacks.into_iter().enumerate() {
        while let Some(joiner) = joiners.next_if(|joiner| joiner.before <= index) {
            joiner.waker.wake();
        }
        with_current(|core| core.call_soon_named(label, callback));
    }
    for joiner in joiners {
        joiner.waker.wake();
    }
}

impl<T, F: Future<Output = Result<T, Error>>> Future for TaskFuture<T, F> {
    type Output = ();

    // ANCHOR: step
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Every field is `Unpin` (the user's future is boxed).
        let this = self.get_mut();
        if !this
            .wakers
            .as_ref()
            .is_some_and(|(task, _)| task.will_wake(cx.waker()))
        {
            let step = Waker::from(Arc::new(StepWake {
                woken: Arc::clone(&this.ctl.woken),
                task: cx.waker().clone(),
            }));
            *this
                .ctl
                .waker
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(step.clone());
            this.wakers = Some((cx.waker().clone(), step));
        }
        if this.ctl.is_aborted() {
            // Abort, Rust's way: the future is dropped here, between two of its steps,
            // never inside its own poll.
            drop(this.future.take());
            this.finish(Err(Error::Cancelled(None)));
            return Poll::Ready(());
        }
        this.ctl.steps.set(this.ctl.steps.get() + 1);
        // A new step waits on nothing until a cancellation point says so.
        this.ctl.waiting_on.borrow_mut().clear();
        let Some(future) = this.future.as_mut() else {
            return Poll::Ready(());
        };
        if this.ctl.steps.get() == 1
            && let Some(message) = this.ctl.take_request()
        {
            // Cancelled before its first step: asyncio throws into a coroutine that
            // has not started, and it ends at once, running none of its code.
            drop(this.future.take());
            this.finish(Err(Error::Cancelled(message)));
            return Poll::Ready(());
        }
        let Some((_, step)) = this.wakers.as_ref() else {
            unreachable!("the step's waker is made above");
        };
        this.ctl.woken.store(false, Ordering::Relaxed);
        this.ctl.stepping.set(true);
        // A panic of the step is caught here, inside the task, so that it ends the task
        // the way a failure does: its joiners and done callbacks (a group's) run.
        if this.home.is_none() {
            this.home = home(&this.ctl);
        }
        let (ctl, home, scope) = (&this.ctl, this.home.as_deref(), this.scope.as_deref());
        let poll = panic::catch_unwind(AssertUnwindSafe(|| {
            let _current = CurrentGuard::enter(ctl, home);
            in_scope(scope, || {
                future.as_mut().poll(&mut Context::from_waker(step))
            })
        }));
        this.ctl.stepping.set(false);
        let poll = match poll {
            Ok(poll) => poll,
            Err(payload) => {
                this.end_panicked(panic_message(payload));
                return Poll::Ready(());
            }
        };
        match poll {
            Poll::Pending => {
                if this.ctl.must_cancel.get() {
                    this.ctl.suspended_with_request(step);
                }
                Poll::Pending
            }
            Poll::Ready(result) => {
                drop(this.future.take());
                // A request that no cancellation point delivered still ends the task
                // cancelled, as asyncio's step does when the coroutine returns.
                let result = match (result, this.ctl.take_any_request()) {
                    (Ok(_), Some(message)) => Err(Error::Cancelled(message)),
                    (result, _) => result,
                };
                this.finish(result);
                Poll::Ready(())
            }
        }
    }
    // ANCHOR_END: step
}

impl<T, F> fmt::Debug for TaskFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskFuture")
            .field("ctl", &self.ctl)
            .finish()
    }
}

impl<T, F> Drop for TaskFuture<T, F> {
    fn drop(&mut self) {
        if self.ctl.done.get() {
            return;
        }
        // Dropped unfinished: the loop closed with the task pending (a panic of a step
        // ends the task in `poll`, so it never comes here).
        let error = Error::Cancelled(None);
        drop(self.future.take());
        self.ctl.ended_cancelled.set(error.is_cancelled());
        self.ctl.set_done();
        self.ctl.waiting_on.borrow_mut().clear();
        for joiner in mem::take(&mut *self.ctl.joiners.borrow_mut()) {
            joiner.waker.wake();
        }
        self.ctl.done_callbacks.borrow_mut().clear();
        self.outcome.replace(Outcome::Done(Err(error)));
    }
}

/// Makes `future` a task of this layer without spawning it: the returned future is
/// what the loop's task polls (give it to `run_until_complete`, or to a loop's own
/// `spawn`), and the handle reads its result. [`spawn`] is this plus the loop's spawn.
pub fn task_future<T, F>(name: &str, future: F) -> (TaskFuture<T, F>, Task<T>)
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    let ctl = Ctl::new(name.to_owned());
    crate::ctl::register(&ctl);
    let outcome = Rc::new(RefCell::new(Outcome::Running));
    let driven = TaskFuture {
        ctl: Rc::clone(&ctl),
        future: Some(Box::pin(future)),
        outcome: Rc::clone(&outcome),
        wakers: None,
        home: None,
        scope: scope_for_new_task(),
    };
    (driven, Task { ctl, outcome })
}

/// The handle of a task of this layer (asyncio's `Task` object, minus the coroutine).
///
/// Dropping it does not stop the task.
pub struct Task<T> {
    pub(crate) ctl: Rc<Ctl>,
    outcome: Rc<RefCell<Outcome<T>>>,
}

impl<T> fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task").field("ctl", &self.ctl).finish()
    }
}

// ANCHOR: spawn
/// Spawns `future` as a task of this layer on the running loop (asyncio's
/// `create_task`). Its output is a `Result`: `Err(Error::Cancelled(_))` returned from
/// it ends the task cancelled. On a loop made eager with
/// [`set_eager_start`](crate::set_eager_start), this is [`spawn_eager`](crate::spawn_eager).
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn<T, F>(future: F) -> Task<T>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    spawn_named("task", future)
}

/// Like [`spawn`], with a name.
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn_named<T, F>(name: &str, future: F) -> Task<T>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    if eager_by_default() {
        return spawn_eager_named(name, future);
    }
    let (driven, task) = task_future(name, future);
    register(&task.ctl);
    let name = name.to_owned();
    // The loop's own join handle is not needed: the outcome cell says everything.
    drop(
        with_current(|core| core.spawn_named(name, driven))
            .expect("oneloop_cancel::spawn needs a running loop on this thread"),
    );
    task
}
// ANCHOR_END: spawn

impl<T> Task<T> {
    /// This task without its result type.
    pub fn task_ref(&self) -> TaskRef {
        TaskRef {
            ctl: Rc::clone(&self.ctl),
        }
    }

    /// Requests a cancel (asyncio's `Task.cancel(msg)`): false if the task is finished.
    /// If the task awaits other tasks, the request goes to them; otherwise it waits,
    /// undelivered, for the task's next cancellation point. A task cancelled before its
    /// first step ends cancelled at that step, running none of its code.
    pub fn cancel(&self, message: Option<&str>) -> bool {
        self.ctl.cancel(message.map(str::to_owned))
    }

    /// How many cancel requests are pending (asyncio's `cancelling()`).
    pub fn cancelling(&self) -> u32 {
        self.ctl.requests.get()
    }

    /// Takes one request back; returns how many are left (asyncio's `uncancel()`).
    pub fn uncancel(&self) -> u32 {
        self.ctl.uncancel()
    }

    /// Aborts the task, Rust's way: its next step drops its future instead of polling
    /// it, and its result is `Err(Error::Cancelled(None))`. Returns false if the task is
    /// finished. The future's drops run then, synchronously; no code of it runs again.
    pub fn abort(&self) -> bool {
        if self.ctl.done.get() {
            return false;
        }
        self.ctl.aborted.store(true, Ordering::Release);
        self.ctl.wake();
        true
    }

    /// A `Send` handle that aborts this task from another thread, through the loop's
    /// thread-safe queue (stage 7). Fails outside a loop that has the offload layer.
    pub fn abort_handle(&self) -> Result<AbortHandle, Error> {
        let handle = LoopHandle::current()
            .map_err(|_| Error::Misuse("abort_handle needs a loop with the offload layer"))?;
        Ok(AbortHandle {
            aborted: Arc::clone(&self.ctl.aborted),
            waker: Arc::clone(&self.ctl.waker),
            handle,
        })
    }

    /// Whether the task finished.
    pub fn is_done(&self) -> bool {
        self.ctl.done.get()
    }

    /// Whether the task ended cancelled (or aborted).
    pub fn is_cancelled(&self) -> bool {
        self.ctl.ended_cancelled.get()
    }

    /// The task's name.
    pub fn name(&self) -> &str {
        &self.ctl.name
    }

    /// Adds a callback run in a coming turn once the task is done (asyncio's
    /// `add_done_callback`), labelled `label` in traces.
    pub fn add_done_callback(&self, label: &'static str, callback: impl FnOnce() + 'static) {
        if self.ctl.done.get() {
            with_current(|core| core.call_soon_named(label, callback));
        } else {
            self.ctl
                .done_callbacks
                .borrow_mut()
                .push((label, Box::new(callback)));
        }
    }

    /// Takes the result without waiting, if the task is done. A failure is cloned (it
    /// can be read again); a value is moved out, and a second take is
    /// `Err(Error::Misuse(RESULT_TAKEN))`.
    pub fn try_result(&self) -> Option<Result<T, Error>> {
        let mut outcome = self.outcome.borrow_mut();
        match &*outcome {
            Outcome::Running => None,
            Outcome::Done(Err(error)) => {
                self.ctl.retrieved.set(true);
                Some(Err(error.clone()))
            }
            Outcome::Done(Ok(_)) => match mem::replace(&mut *outcome, Outcome::Taken) {
                Outcome::Done(result) => Some(result),
                _ => unreachable!("matched Done above"),
            },
            Outcome::Taken => Some(Err(Error::Misuse(RESULT_TAKEN))),
        }
    }

    /// The failure the task ended with (cancels included), without taking anything.
    pub(crate) fn try_result_error(&self) -> Option<Error> {
        match &*self.outcome.borrow() {
            Outcome::Done(Err(error)) => Some(error.clone()),
            _ => None,
        }
    }

    /// A view of the outcome that a done callback can keep.
    pub(crate) fn watch(task: &Task<T>) -> Watched<T> {
        Watched(Rc::clone(&task.outcome))
    }

    pub(crate) fn add_joiner(&self, waker: &Waker) {
        self.add_joiner_on(waker, WakeOn::End);
    }

    /// Wakes `waker` when the task ends as `on` says. A waker already registered keeps
    /// its place, and the looser of its two conditions.
    pub(crate) fn add_joiner_on(&self, waker: &Waker, on: WakeOn) {
        let before = self.ctl.done_callbacks.borrow().len();
        let mut joiners = self.ctl.joiners.borrow_mut();
        match joiners
            .iter_mut()
            .find(|joiner| joiner.waker.will_wake(waker))
        {
            Some(joiner) => joiner.on = joiner.on.min(on),
            None => joiners.push(Joiner {
                before,
                waker: waker.clone(),
                on,
            }),
        }
    }

    /// Awaits the task: a cancellation point of the awaiting task, and a cancel of the
    /// awaiting task goes on to this one (asyncio cancels `_fut_waiter`).
    pub fn join(&self) -> Join<'_, T> {
        Join {
            task: self,
            awaiting: None,
        }
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.ctl.handle_alive.set(false);
        let unread = match &*self.outcome.borrow() {
            Outcome::Done(Err(error)) => Some(error.clone()),
            _ => None,
        };
        if let Some(error) = unread {
            self.ctl.report_unretrieved(&error);
        }
    }
}

/// A task's outcome, seen from a done callback.
pub(crate) struct Watched<T>(Rc<RefCell<Outcome<T>>>);

impl<T> Watched<T> {
    /// The failure the task ended with, if it failed and was not cancelled; reading
    /// it counts as retrieving it.
    pub(crate) fn retrieve(&self, ctl: &Ctl) -> Option<Error> {
        ctl.retrieved.set(true);
        self.error()
    }

    /// The failure the task ended with, if it failed and was not cancelled.
    pub(crate) fn error(&self) -> Option<Error> {
        match &*self.0.borrow() {
            Outcome::Done(Err(error)) if !error.is_cancelled() => Some(error.clone()),
            _ => None,
        }
    }
}

/// The future of [`Task::join`].
#[derive(Debug)]
pub struct Join<'a, T> {
    task: &'a Task<T>,
    /// The task that awaits this join, while the task it joins is among the tasks it
    /// awaits (so that its cancel goes on to that task).
    awaiting: Option<Rc<Ctl>>,
}

impl<T> Join<'_, T> {
    /// The join is over: the awaiting task no longer passes a cancel on to the task.
    fn stop_waiting(&mut self) {
        if let Some(awaiting) = self.awaiting.take() {
            awaiting.stop_waiting_on(&self.task.ctl);
        }
    }
}

impl<T> Drop for Join<'_, T> {
    fn drop(&mut self) {
        // A join dropped unfinished (a select's loser) stops passing cancels on, so
        // that the awaiting task's next cancellation point gets its own cancel.
        self.stop_waiting();
    }
}

impl<T> Future for Join<'_, T> {
    type Output = Result<T, Error>;

    // ANCHOR: join
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let task = this.task;
        let awaiting = current_ctl();
        if let Some(message) = awaiting.as_ref().and_then(|task| task.take_request()) {
            this.stop_waiting();
            return Poll::Ready(Err(Error::Cancelled(message)));
        }
        if let Some(result) = task.try_result() {
            this.stop_waiting();
            return Poll::Ready(result);
        }
        task.add_joiner(cx.waker());
        if let Some(awaiting) = awaiting {
            awaiting.wait_on(&task.ctl);
            this.awaiting = Some(awaiting);
        }
        Poll::Pending
    }
    // ANCHOR_END: join
}

/// Aborts a task from any thread (see [`Task::abort_handle`]).
#[derive(Clone)]
pub struct AbortHandle {
    aborted: Arc<std::sync::atomic::AtomicBool>,
    waker: Arc<Mutex<Option<Waker>>>,
    handle: LoopHandle,
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle").finish_non_exhaustive()
    }
}

impl AbortHandle {
    /// Marks the task aborted and asks the loop, through its thread-safe queue, to
    /// step it (the step drops its future). Fails with a clear error once the loop is
    /// closed.
    pub fn abort(&self) -> Result<(), Error> {
        self.aborted.store(true, Ordering::Release);
        let waker = Arc::clone(&self.waker);
        self.handle
            .call_soon_threadsafe_named("abort", move || {
                let waker = waker.lock().unwrap_or_else(PoisonError::into_inner).clone();
                if let Some(waker) = waker {
                    waker.wake();
                }
            })
            .map_err(|_| Error::Misuse(LOOP_CLOSED))
    }
}
