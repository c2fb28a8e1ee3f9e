//! Exercise 1: one step of a task, with no borrow held, and wakers that carry ids.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use crate::common::{Recorder, yield_once};
use ex03_task::{Label, StepOutcome, TaskId, Tasks, step};
use oneloop_testkit::{PollCounter, watchdog_default};

#[test]
fn ex1_a_pending_future_goes_back_and_a_ready_one_frees_its_slot() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let future = PollCounter::new(yield_once());
        let polls = future.count_handle();
        let id = tasks.borrow_mut().insert(Box::pin(future), None);

        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(polls.get(), 1);
        let slab = tasks.borrow();
        let slot = slab.get(id).expect("a pending task stays in its slot");
        assert!(!slot.is_running(), "the future is put back after the poll");
        drop(slab);

        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(polls.get(), 2);
        assert!(
            !tasks.borrow().contains(id),
            "a finished task frees its slot"
        );
        assert!(tasks.borrow().is_empty());
    });
}

#[test]
fn ex1_the_waker_carries_the_task_id_to_the_scheduler() {
    watchdog_default(|| {
        let recorder = Recorder::new();
        let tasks = RefCell::new(Tasks::new(recorder.clone()));
        let a = tasks
            .borrow_mut()
            .insert(Box::pin(std::future::pending()), None);
        let b = tasks.borrow_mut().insert(Box::pin(yield_once()), None);
        assert_eq!(step(&tasks, a), StepOutcome::Pending);
        assert_eq!(step(&tasks, b), StepOutcome::Pending);
        assert_eq!(
            recorder.taken(),
            vec![b],
            "only the task that woke itself is scheduled"
        );
    });
}

/// Pending twice, keeping the waker of its first poll; `Ready` on the third poll with
/// whether each later poll's waker would wake the same task as the first.
struct SameWaker {
    first: Option<Waker>,
    same: Vec<bool>,
}

impl Future for SameWaker {
    type Output = Vec<bool>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<bool>> {
        let this = &mut *self;
        match &this.first {
            None => this.first = Some(cx.waker().clone()),
            Some(first) => this.same.push(first.will_wake(cx.waker())),
        }
        if this.same.len() == 2 {
            return Poll::Ready(std::mem::take(&mut this.same));
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn ex1_every_step_lends_the_tasks_one_waker() {
    watchdog_default(|| {
        // The task keeps one waker for its whole life; a step lends it. A waker made
        // per step would cost an allocation each time and defeat every `will_wake`.
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let seen = Rc::new(RefCell::new(Vec::new()));
        let kept = Rc::clone(&seen);
        let id = tasks.borrow_mut().insert(
            Box::pin(async move {
                let same = SameWaker {
                    first: None,
                    same: Vec::new(),
                }
                .await;
                *kept.borrow_mut() = same;
            }),
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(*seen.borrow(), vec![true, true]);
    });
}

#[test]
fn ex1_no_borrow_of_the_slab_is_held_while_the_future_runs() {
    watchdog_default(|| {
        let tasks = Rc::new(RefCell::new(Tasks::new(Recorder::new())));
        let inner = Rc::clone(&tasks);
        let spawned = Rc::new(Cell::new(None));
        let spawned_in = Rc::clone(&spawned);
        // The future spawns another task from inside its own poll.
        let id = tasks.borrow_mut().insert(
            Box::pin(async move {
                let child = inner.borrow_mut().insert(Box::pin(async {}), None);
                spawned_in.set(Some(child));
            }),
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        let child = spawned.get().expect("the future ran");
        assert_eq!(step(&tasks, child), StepOutcome::Finished);
    });
}

/// Checks, when dropped, whether the slab can be borrowed: it must be.
struct BorrowProbe {
    tasks: Rc<RefCell<Tasks<Recorder>>>,
    free: Rc<Cell<Option<bool>>>,
}

impl Drop for BorrowProbe {
    fn drop(&mut self) {
        self.free.set(Some(self.tasks.try_borrow_mut().is_ok()));
    }
}

/// Ready at once; its probe is dropped only when the future itself is dropped.
struct ReadyHolding(#[allow(dead_code)] BorrowProbe);

impl Future for ReadyHolding {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

#[test]
fn ex1_a_finished_future_is_dropped_after_the_borrow_is_released() {
    watchdog_default(|| {
        let tasks = Rc::new(RefCell::new(Tasks::new(Recorder::new())));
        let free = Rc::new(Cell::new(None));
        let probe = BorrowProbe {
            tasks: Rc::clone(&tasks),
            free: Rc::clone(&free),
        };
        let id = tasks
            .borrow_mut()
            .insert(Box::pin(ReadyHolding(probe)), None);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(
            free.get(),
            Some(true),
            "dropped, with the slab free to borrow"
        );
    });
}

#[test]
fn ex1_a_stale_id_never_reaches_the_new_task_in_a_reused_slot() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let old = tasks.borrow_mut().insert(Box::pin(async {}), None);
        assert_eq!(step(&tasks, old), StepOutcome::Finished);

        let future = PollCounter::new(std::future::pending::<()>());
        let polls = future.count_handle();
        let new = tasks.borrow_mut().insert(Box::pin(future), None);
        assert_eq!(new.index(), old.index(), "the slot is reused");
        assert_ne!(new.generation(), old.generation(), "with a new generation");

        assert_eq!(step(&tasks, old), StepOutcome::Stale);
        assert_eq!(polls.get(), 0, "the stale id did not poll the new task");
        assert_eq!(step(&tasks, new), StepOutcome::Pending);
        assert_eq!(polls.get(), 1);
    });
}

type Slab = Rc<RefCell<Tasks<Recorder>>>;

/// Inserts a task whose every poll runs `body` with the slab and the task's own id.
fn insert_knowing_its_id(
    tasks: &Slab,
    label: Option<Label>,
    mut body: impl FnMut(&Slab, TaskId) -> Poll<()> + 'static,
) -> TaskId {
    let slab = Rc::clone(tasks);
    let me = Rc::new(Cell::new(None::<TaskId>));
    let my_id = Rc::clone(&me);
    let future = std::future::poll_fn(move |_cx| {
        body(
            &slab,
            my_id.get().expect("the id is set before the first step"),
        )
    });
    let id = tasks.borrow_mut().insert(Box::pin(future), label);
    me.set(Some(id));
    id
}

#[test]
fn ex1_a_step_clears_the_queued_flag_before_polling() {
    watchdog_default(|| {
        let tasks: Slab = Rc::new(RefCell::new(Tasks::new(Recorder::new())));
        // Stands in for stage 4's wake path: while it runs, the task wakes itself by
        // marking itself queued, which must succeed (the flag was cleared before the
        // poll) and must stay set (clearing it after the poll would lose this wake).
        let marked_during_poll = Rc::new(Cell::new(None));
        let marked = Rc::clone(&marked_during_poll);
        let id = insert_knowing_its_id(&tasks, Some("yielder".into()), move |slab, id| {
            marked.set(Some(slab.borrow_mut().mark_queued(id).is_some()));
            Poll::Pending
        });
        assert_eq!(
            tasks.borrow_mut().mark_queued(id),
            Some(Label::Static("yielder"))
        );
        assert_eq!(tasks.borrow_mut().mark_queued(id), None, "already queued");

        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(
            marked_during_poll.get(),
            Some(true),
            "inside the poll the task could be queued again"
        );
        assert!(
            tasks.borrow().get(id).unwrap().is_queued(),
            "the wake made during the poll is still queued after it"
        );
    });
}

#[test]
fn ex1_a_step_of_a_task_that_is_already_running_does_nothing() {
    watchdog_default(|| {
        let tasks: Slab = Rc::new(RefCell::new(Tasks::new(Recorder::new())));
        let nested = Rc::new(Cell::new(None));
        let nested_out = Rc::clone(&nested);
        // The future asks for a step of its own task while that task is being stepped.
        let id = insert_knowing_its_id(&tasks, None, move |slab, id| {
            nested_out.set(Some(step(slab, id)));
            Poll::Ready(())
        });
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(
            nested.get(),
            Some(StepOutcome::Stale),
            "the future is out of its slot: the nested step finds nothing to poll"
        );
    });
}

#[test]
fn ex1_wakers_are_send_and_sync_though_futures_need_not_be() {
    fn send_sync<T: Send + Sync>(value: T) -> T {
        value
    }
    watchdog_default(|| {
        let recorder = Recorder::new();
        let tasks = RefCell::new(Tasks::new(Arc::clone(&recorder)));
        // An Rc is not Send: the future stays on this thread, in the slab.
        let shared = Rc::new(Cell::new(0));
        let inner = Rc::clone(&shared);
        let kept = Rc::new(RefCell::new(None::<Waker>));
        let keep = Rc::clone(&kept);
        let id = tasks.borrow_mut().insert(
            Box::pin(std::future::poll_fn(move |cx| {
                inner.set(inner.get() + 1);
                if inner.get() == 2 {
                    return Poll::Ready(());
                }
                *keep.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            })),
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        // The task's waker goes to another thread and wakes the task from there.
        let waker = send_sync(kept.borrow_mut().take().expect("the future kept its waker"));
        std::thread::spawn(move || waker.wake())
            .join()
            .expect("the waking thread does not panic");
        assert_eq!(
            recorder.taken(),
            vec![id],
            "the wake asked for a step of the task"
        );
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(shared.get(), 2);
    });
}

#[test]
fn ex1_a_task_emptied_from_its_slot_while_it_runs_is_dropped_by_the_step() {
    watchdog_default(|| {
        // The future empties the whole slab from inside its own poll, as a shutdown
        // from inside a task would, and stays pending: its slot is gone, so the step
        // that polled it must drop it (the handle then says the task was cancelled).
        let tasks = Rc::new(RefCell::new(Tasks::new(Recorder::new())));
        let sink = ex03_task::hooks::ExceptionSink::new();
        let name: Rc<str> = Rc::from("drained");
        let drops = Rc::new(Cell::new(0));
        let counted = DropCounter(Rc::clone(&drops));
        let slab = Rc::clone(&tasks);
        let future = std::future::poll_fn(move |_cx| {
            let _ = &counted;
            let drained = slab.borrow_mut().drain();
            drop(drained);
            Poll::<()>::Pending
        });
        let label = Label::Shared(Rc::clone(&name));
        let (id, handle) = ex03_task::hooks::spawn_into(&tasks, &sink, future, Some(label));
        assert_eq!(step(&tasks, id), StepOutcome::Finished, "its slot is gone");
        assert_eq!(drops.get(), 1, "the step dropped the future, once");
        assert_eq!(
            handle.try_take(),
            Some(Err(ex03_task::JoinError::Cancelled))
        );
        drop(handle);
        assert_eq!(Rc::strong_count(&name), 1, "and let go of the task");
    });
}

/// Counts its drops.
struct DropCounter(Rc<Cell<usize>>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}
