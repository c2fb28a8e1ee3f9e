//! A task's waker points at the task's own cell: what that shares, what it keeps
//! alive, and on which thread each part is dropped.
//!
//! The cell's header holds the slab's scheduler (an `Arc`), so the scheduler's count
//! tells from outside whether a cell is still allocated: one more while it is.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll, Waker};
use std::thread::{self, ThreadId};

use oneloop_task::hooks::{ExceptionSink, spawn_into};
use oneloop_task::{StepOutcome, Tasks, step};
use oneloop_testkit::watchdog_default;

use crate::common::Recorder;

/// Keeps a clone of its waker in `kept` at its first poll and is pending; ready at its
/// second. Records, when dropped, the thread that dropped it.
struct KeepsItsWaker {
    polls: u32,
    kept: Rc<RefCell<Option<Waker>>>,
    dropped_on: Rc<RefCell<Option<ThreadId>>>,
}

impl Future for KeepsItsWaker {
    type Output = u32;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        self.polls += 1;
        if self.polls == 2 {
            return Poll::Ready(7);
        }
        *self.kept.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for KeepsItsWaker {
    fn drop(&mut self) {
        *self.dropped_on.borrow_mut() = Some(thread::current().id());
    }
}

#[test]
fn a_waker_kept_past_its_task_keeps_only_the_cell_and_frees_it_on_its_own_thread() {
    watchdog_default(|| {
        let recorder = Arc::new(Recorder::default());
        let tasks = RefCell::new(Tasks::new(Arc::clone(&recorder)));
        let sink = ExceptionSink::new();
        let without_task = Arc::strong_count(&recorder);
        let kept = Rc::new(RefCell::new(None));
        let dropped_on = Rc::new(RefCell::new(None));
        let future = KeepsItsWaker {
            polls: 0,
            kept: Rc::clone(&kept),
            dropped_on: Rc::clone(&dropped_on),
        };
        let (id, handle) = spawn_into(&tasks, &sink, future, None);
        assert_eq!(
            Arc::strong_count(&recorder),
            without_task + 1,
            "the cell is allocated"
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        let waker = kept.borrow_mut().take().expect("the future kept its waker");
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 1);

        waker.wake_by_ref();
        assert_eq!(
            recorder.taken(),
            vec![id],
            "the wake asks for a step of its task"
        );
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(
            *dropped_on.borrow(),
            Some(thread::current().id()),
            "the future is dropped by the step that finished it, on the loop's thread"
        );
        assert_eq!(handle.try_take(), Some(Ok(7)));
        drop(handle);
        assert_eq!(
            Arc::strong_count(&recorder),
            without_task + 1,
            "the waker still holds the cell (its header), with no future or handle left"
        );

        // A new task takes the freed slot; the old waker still wakes only the old id.
        let (new_id, new_handle) = spawn_into(&tasks, &sink, std::future::pending::<()>(), None);
        assert_eq!(new_id.index(), id.index(), "the slot is reused");
        let main = thread::current().id();
        let woke_on = thread::spawn(move || {
            waker.wake_by_ref();
            drop(waker);
            thread::current().id()
        })
        .join()
        .expect("the waking thread does not panic");
        assert_ne!(woke_on, main);
        assert_eq!(
            recorder.taken(),
            vec![id],
            "the stale wake carries the old id"
        );
        assert_eq!(
            step(&tasks, id),
            StepOutcome::Stale,
            "and misses the new task"
        );
        assert_eq!(
            Arc::strong_count(&recorder),
            without_task + 1,
            "the last waker, dropped on the other thread, freed the old cell; the new task's remains"
        );
        drop(new_handle);
        drop(tasks.borrow_mut().drain());
        assert_eq!(
            Arc::strong_count(&recorder),
            without_task,
            "no cell is left"
        );
    });
}

/// Pending for ever; hands out a clone of its waker at its first poll.
struct HandsOutItsWaker(Rc<RefCell<Option<Waker>>>);

impl Future for HandsOutItsWaker {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0
            .borrow_mut()
            .get_or_insert_with(|| cx.waker().clone());
        Poll::Pending
    }
}

#[test]
fn every_clone_of_a_tasks_waker_counts_on_its_cell_whichever_thread_makes_it() {
    const THREADS: usize = 4;
    const ROUNDS: usize = 1_000;
    watchdog_default(|| {
        let recorder = Arc::new(Recorder::default());
        let tasks = RefCell::new(Tasks::new(Arc::clone(&recorder)));
        let sink = ExceptionSink::new();
        let kept = Rc::new(RefCell::new(None));
        let (id, handle) = spawn_into(&tasks, &sink, HandsOutItsWaker(Rc::clone(&kept)), None);
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        let waker = kept
            .borrow_mut()
            .take()
            .expect("the future handed out its waker");
        let slot_waker = tasks.borrow().get(id).expect("live").waker();
        assert!(
            waker.will_wake(&slot_waker),
            "every waker of a task is the same waker"
        );
        drop(slot_waker);
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 1);

        // Each thread keeps one clone while the others clone, wake and drop theirs.
        let kept_by_threads = Arc::new(Barrier::new(THREADS + 1));
        let counted = Arc::new(Barrier::new(THREADS + 1));
        let threads: Vec<_> = (0..THREADS)
            .map(|_| {
                let waker = waker.clone();
                let kept_by_threads = Arc::clone(&kept_by_threads);
                let counted = Arc::clone(&counted);
                thread::spawn(move || {
                    for _ in 0..ROUNDS {
                        let clone = waker.clone();
                        clone.wake();
                        waker.wake_by_ref();
                    }
                    kept_by_threads.wait();
                    counted.wait();
                    drop(waker);
                })
            })
            .collect();
        kept_by_threads.wait();
        assert_eq!(
            tasks.borrow().wakers_held_elsewhere(),
            1 + THREADS,
            "ours and one clone on each thread"
        );
        counted.wait();
        for thread in threads {
            thread.join().expect("a waking thread does not panic");
        }
        assert_eq!(
            tasks.borrow().wakers_held_elsewhere(),
            1,
            "only ours is left"
        );
        assert_eq!(
            recorder.taken().len(),
            THREADS * ROUNDS * 2,
            "every wake was asked for"
        );
        drop(waker);
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 0);
        drop(handle);
        drop(tasks.borrow_mut().drain());
    });
}
