//! The combinators people reach for: `shield`, `gather`, `wait`, `as_completed`, and
//! a race of two tasks whose loser is cancelled and awaited.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use oneloop_core::hooks::with_current;

use crate::ctl::{Ctl, WakeOn, current_ctl};
use crate::error::WAIT_NOTHING;
use crate::{Error, LoserFate, Selected, Task, spawn};

/// Takes the current task's undelivered request, if any.
fn take_request() -> Option<Error> {
    current_ctl()
        .and_then(|task| task.take_request())
        .map(Error::Cancelled)
}

// ANCHOR: shield
/// Awaits `task` without passing a cancel on to it (asyncio's `shield`): a cancel of
/// the awaiting task is delivered here, and `task` runs on.
///
/// A `task` that ends cancelled (cancelled by someone else) gives a cancel with no
/// message, as asyncio's `shield` cancels its outer future without one; its own
/// message stays in its handle (`Task::try_result`). The awaiting task's request count
/// does not move: no one asked to cancel it.
pub fn shield<T>(task: &Task<T>) -> Shield<'_, T> {
    Shield { task }
}
// ANCHOR_END: shield

/// The future of [`shield`].
#[derive(Debug)]
pub struct Shield<'a, T> {
    task: &'a Task<T>,
}

impl<T> Future for Shield<'_, T> {
    type Output = Result<T, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(cancel) = take_request() {
            return Poll::Ready(Err(cancel));
        }
        if let Some(result) = self.task.try_result() {
            if self.task.is_cancelled() {
                return Poll::Ready(Err(Error::Cancelled(None)));
            }
            return Poll::Ready(result);
        }
        self.task.add_joiner(cx.waker());
        if let Some(awaiting) = current_ctl() {
            awaiting.watch(&self.task.ctl, "shield");
        }
        Poll::Pending
    }
}

/// When [`wait`] returns (asyncio's `return_when`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnWhen {
    /// As soon as one task is done.
    FirstCompleted,
    /// As soon as one task fails (not cancelled), or all are done.
    FirstException,
    /// When every task is done.
    AllCompleted,
}

/// Waits for `tasks` as `when` says, and returns the indices of the done ones and of
/// the pending ones (asyncio's `wait`). It is a cancellation point; a cancel of the
/// awaiting task does not reach the tasks. It always suspends the awaiting task once,
/// as asyncio's does, whose waiter completes from a done callback: when `when` already
/// holds at the first poll, the task wakes itself and looks again in the next turn.
/// No task at all is a misuse, `Err(Error::Misuse(WAIT_NOTHING))`, at once, as
/// asyncio's `wait` raises.
pub async fn wait<T>(
    tasks: &[Task<T>],
    when: ReturnWhen,
) -> Result<(Vec<usize>, Vec<usize>), Error> {
    if tasks.is_empty() {
        return Err(Error::Misuse(WAIT_NOTHING));
    }
    Wait {
        tasks,
        when,
        suspended: false,
    }
    .await
}

struct Wait<'a, T> {
    tasks: &'a [Task<T>],
    when: ReturnWhen,
    /// Whether the awaiting task has been suspended here once.
    suspended: bool,
}

impl<T> Future for Wait<'_, T> {
    type Output = Result<(Vec<usize>, Vec<usize>), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(cancel) = take_request() {
            return Poll::Ready(Err(cancel));
        }
        let this = self.get_mut();
        let tasks = this.tasks;
        let (done, pending): (Vec<usize>, Vec<usize>) =
            (0..tasks.len()).partition(|&i| tasks[i].is_done());
        let failed = done.iter().any(|&i| {
            let ctl = &tasks[i].ctl;
            !ctl.ended_cancelled.get() && Task::watch(&tasks[i]).error().is_some()
        });
        let ready = pending.is_empty()
            || match this.when {
                ReturnWhen::FirstCompleted => !done.is_empty(),
                ReturnWhen::FirstException => failed,
                ReturnWhen::AllCompleted => false,
            };
        let suspended = std::mem::replace(&mut this.suspended, true);
        if ready && suspended {
            return Poll::Ready(Ok((done, pending)));
        }
        if ready {
            // asyncio's waiter completes only from a done callback: not before a turn.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        // Woken by the last task, and by what else `when` waits for: any end, or a
        // failure (asyncio's `_on_completion` completes its waiter only then).
        let last = Waker::from(Arc::new(CountDown {
            left: AtomicUsize::new(pending.len()),
            waker: cx.waker().clone(),
        }));
        let also = match this.when {
            ReturnWhen::FirstCompleted => Some(WakeOn::End),
            ReturnWhen::FirstException => Some(WakeOn::Failure),
            ReturnWhen::AllCompleted => None,
        };
        let awaiting = current_ctl();
        for &i in &pending {
            tasks[i].add_joiner(&last);
            if let Some(on) = also {
                tasks[i].add_joiner_on(cx.waker(), on);
            }
            if let Some(awaiting) = &awaiting {
                awaiting.watch(&tasks[i].ctl, "wait");
            }
        }
        Poll::Pending
    }
}

// ANCHOR: gather
/// Spawns every future as a task and waits for all (asyncio's `gather`): results in
/// argument order. With `return_exceptions`, failures take their place in the list;
/// without, the first failure (in the order they happen) is returned at once and the
/// other tasks run on. A cancel of the awaiting task goes on to every child.
pub async fn gather<T, F>(
    futures: Vec<F>,
    return_exceptions: bool,
) -> Result<Vec<Result<T, Error>>, Error>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    let mut children = Children {
        tasks: futures.into_iter().map(spawn).collect(),
        returned: false,
    };
    let results = Gather {
        tasks: &children.tasks,
        return_exceptions,
        requests_at_start: None,
        awaiting: None,
    }
    .await;
    children.returned = true;
    results
}

/// The tasks a gather spawned. A gather dropped before it returned (its task aborted,
/// or a select's loser) cancels those still running: nobody can await them any more,
/// as a group's dropped owner cancels its children. Once the gather returns they run
/// on, as asyncio's do after the first failure.
struct Children<T> {
    tasks: Vec<Task<T>>,
    /// Set once the gather returned: its tasks are left to run.
    returned: bool,
}

impl<T> Drop for Children<T> {
    fn drop(&mut self) {
        if self.returned {
            return;
        }
        for task in self.tasks.iter().filter(|task| !task.is_done()) {
            task.cancel(None);
        }
    }
}
// ANCHOR_END: gather

struct Gather<'a, T> {
    tasks: &'a [Task<T>],
    return_exceptions: bool,
    /// The awaiting task's `cancelling()` when the gather began: a count above it at
    /// the end means a cancel was passed on to the children while they ran.
    requests_at_start: Option<u32>,
    /// The task that awaits the gather, while the children are among the tasks it
    /// awaits.
    awaiting: Option<Rc<Ctl>>,
}

impl<T> Gather<'_, T> {
    /// The gather is over: the awaiting task no longer passes a cancel on to the
    /// children.
    fn stop_waiting(&mut self) {
        if let Some(awaiting) = self.awaiting.take() {
            for task in self.tasks {
                awaiting.stop_waiting_on(&task.ctl);
            }
        }
    }
}

impl<T> Drop for Gather<'_, T> {
    fn drop(&mut self) {
        self.stop_waiting();
    }
}

impl<T> Future for Gather<'_, T> {
    type Output = Result<Vec<Result<T, Error>>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(cancel) = take_request() {
            return Poll::Ready(Err(cancel));
        }
        let awaiting = current_ctl();
        let this = self.get_mut();
        let requests_now = awaiting.as_ref().map_or(0, |task| task.requests.get());
        let requests_at_start = *this.requests_at_start.get_or_insert(requests_now);
        // The failure that happened first: several children may have ended since the
        // last poll.
        let first_failure = (!this.return_exceptions)
            .then(|| {
                this.tasks
                    .iter()
                    .filter(|t| t.is_done())
                    .filter_map(|t| Some((t.ctl.finished_seq.get(), t.try_result_error()?)))
                    .min_by_key(|(finished, _)| *finished)
                    .map(|(_, error)| error)
            })
            .flatten();
        if let Some(error) = first_failure {
            return Poll::Ready(Err(error));
        }
        if this.tasks.iter().all(Task::is_done) {
            // A cancel passed on to the children ends the gather cancelled, even when
            // it collects failures (asyncio's `_GatheringFuture` remembers the request).
            // asyncio makes that error from the last child in argument order: with its
            // message if it ended cancelled, with none if it did not.
            if requests_now > requests_at_start {
                let cancel = this
                    .tasks
                    .last()
                    .and_then(Task::try_result_error)
                    .filter(Error::is_cancelled)
                    .unwrap_or(Error::Cancelled(None));
                return Poll::Ready(Err(cancel));
            }
            return Poll::Ready(Ok(this
                .tasks
                .iter()
                .map(|t| t.try_result().expect("done"))
                .collect()));
        }
        let awaiting = current_ctl();
        if let Some(awaiting) = &awaiting {
            awaiting.links.via.set("gather");
        }
        let pending = this.tasks.iter().filter(|t| !t.is_done()).count();
        // The awaiting task is woken by the last child (asyncio's outer future
        // completes then) and, not collecting, by a child that fails: a child that
        // returns before the others wakes nobody.
        let last = Waker::from(Arc::new(CountDown {
            left: AtomicUsize::new(pending),
            waker: cx.waker().clone(),
        }));
        for task in this.tasks.iter().filter(|t| !t.is_done()) {
            task.add_joiner(&last);
            if !this.return_exceptions {
                task.add_joiner_on(cx.waker(), WakeOn::Error);
            }
            if let Some(awaiting) = &awaiting {
                awaiting.wait_on(&task.ctl);
            }
        }
        this.awaiting = awaiting;
        Poll::Pending
    }
}

/// A waker that wakes `waker` on its `left`-th wake.
struct CountDown {
    left: AtomicUsize,
    waker: Waker,
}

impl Wake for CountDown {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.waker.wake_by_ref();
        }
    }
}

/// Yields tasks' results in the order they finish (asyncio's `as_completed`).
///
/// A task already done when the first `next` is called is yielded a turn later, as
/// asyncio's `as_completed` hands it over through a done callback: that `next`
/// suspends the awaiting task once.
#[derive(Debug)]
pub struct AsCompleted<T> {
    tasks: Vec<Option<Task<T>>>,
    /// Where the handover of tasks done before the first `next` stands.
    handover: Handover,
}

/// The one turn `AsCompleted` waits when tasks were done before it watched them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handover {
    /// No `next` yet.
    NotWatching,
    /// The first `next` came in this turn and found a task done: yield nothing before
    /// the next turn.
    WaitOut(u64),
    /// Nothing more to wait for.
    Over,
}

impl<T> AsCompleted<T> {
    /// Watches `tasks`.
    pub fn new(tasks: Vec<Task<T>>) -> Self {
        Self {
            tasks: tasks.into_iter().map(Some).collect(),
            handover: Handover::NotWatching,
        }
    }

    /// The next task to finish: its index and result; `None` when all were yielded.
    /// A cancellation point: `Some(Err(..))` if the awaiting task is cancelled.
    pub async fn next(&mut self) -> Option<Result<(usize, Result<T, Error>), Error>> {
        if self.tasks.iter().all(Option::is_none) {
            return None;
        }
        if self.handover == Handover::NotWatching {
            // asyncio watches the tasks from here; one already done is handed over by
            // a done callback queued now, so not before the next turn.
            let any_done = self.tasks.iter().flatten().any(Task::is_done);
            let turn = with_current(|core| core.turn()).filter(|_| any_done);
            self.handover = turn.map_or(Handover::Over, Handover::WaitOut);
        }
        Some(NextDone(self).await)
    }
}

struct NextDone<'a, T>(&'a mut AsCompleted<T>);

impl<T> Future for NextDone<'_, T> {
    type Output = Result<(usize, Result<T, Error>), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(cancel) = take_request() {
            return Poll::Ready(Err(cancel));
        }
        let this = self.get_mut();
        if let Handover::WaitOut(turn) = this.0.handover {
            if with_current(|core| core.turn()) == Some(turn) {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            this.0.handover = Handover::Over;
        }
        // The done task that finished first: several may have finished since the last
        // poll, and their order is the order of their finishes, not of the tasks.
        let first = this
            .0
            .tasks
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| slot.as_ref().filter(|t| t.is_done()).map(|t| (i, t)))
            .min_by_key(|(_, task)| task.ctl.finished_seq.get())
            .map(|(i, _)| i);
        if let Some(i) = first {
            let task = this.0.tasks[i].take().expect("found done above");
            return Poll::Ready(Ok((i, task.try_result().expect("done"))));
        }
        let awaiting = current_ctl();
        for task in this.0.tasks.iter().flatten() {
            task.add_joiner(cx.waker());
            if let Some(awaiting) = &awaiting {
                awaiting.watch(&task.ctl, "as_completed");
            }
        }
        Poll::Pending
    }
}

/// Races two tasks: the first to finish wins; the loser is cancelled and awaited, and
/// what it ended with is reported (it may have ignored the cancel). A cancel of the
/// awaiting task goes to both.
pub async fn race<A, B>(
    first: Task<A>,
    second: Task<B>,
) -> Result<Selected<Result<A, Error>, Result<B, Error>>, Error> {
    let joined = crate::select(first.join(), second.join()).await;
    Ok(match joined {
        Selected::First(winner, _) => {
            second.cancel(Some("lost the race"));
            Selected::First(winner, LoserFate::Cancelled(second.join().await))
        }
        Selected::Second(winner, _) => {
            first.cancel(Some("lost the race"));
            Selected::Second(winner, LoserFate::Cancelled(first.join().await))
        }
    })
}
