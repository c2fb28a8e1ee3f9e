//! The task cell: a spawned task's join cell and future in one allocation. The future
//! is pinned inside a shared cell, the one `unsafe` lesson of this stage; these tests
//! count what that code must get right: the future dropped exactly once, at the right
//! moment, and the output dropped exactly once, whoever ends up with it.

use std::cell::{Cell, RefCell};
use std::future::{Future, pending};
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_task::hooks::{ExceptionSink, spawn_into};
use oneloop_task::{JoinError, Label, StepOutcome, TaskId, step};
use oneloop_testkit::{DropFlag, DropGuard, watchdog_default};

use crate::common::{Slab, slab};

/// `Pending` on its first poll, `Ready(output)` on its second; holds a drop guard and,
/// maybe, a probe (fields are dropped with the future, not when it returns `Ready`).
struct TwoSteps<T> {
    polled: bool,
    output: Option<T>,
    _guard: DropGuard,
    _probe: Option<SlotProbe>,
}

impl<T: Unpin> Future for TwoSteps<T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<T> {
        if !self.polled {
            self.polled = true;
            return Poll::Pending;
        }
        Poll::Ready(self.output.take().expect("polled after Ready"))
    }
}

/// Records, when dropped, whether the task's slot was already free.
struct SlotProbe {
    tasks: Slab,
    id: Rc<Cell<Option<TaskId>>>,
    slot_free: Rc<Cell<Option<bool>>>,
}

impl Drop for SlotProbe {
    fn drop(&mut self) {
        let id = self.id.get().expect("the id is set before the first step");
        let free = self
            .tasks
            .try_borrow()
            .is_ok_and(|tasks| !tasks.contains(id));
        self.slot_free.set(Some(free));
    }
}

#[test]
fn the_future_is_dropped_once_right_after_the_step_that_finished_it() {
    watchdog_default(|| {
        let tasks = slab();
        let sink = ExceptionSink::new();
        let future_drops = DropFlag::new();
        let id_cell = Rc::new(Cell::new(None));
        let slot_free = Rc::new(Cell::new(None));
        let probe = SlotProbe {
            tasks: Rc::clone(&tasks),
            id: Rc::clone(&id_cell),
            slot_free: Rc::clone(&slot_free),
        };
        let future = TwoSteps {
            polled: false,
            output: Some(7),
            _guard: future_drops.guard(),
            _probe: Some(probe),
        };
        let (id, handle) = spawn_into(&tasks, &sink, future, None);
        id_cell.set(Some(id));

        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(future_drops.drops(), 0, "a pending future stays");
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(
            future_drops.drops(),
            1,
            "dropped by the step that finished it"
        );
        assert_eq!(
            slot_free.get(),
            Some(true),
            "dropped once its slot was free, with the slab not borrowed"
        );
        assert_eq!(handle.try_take(), Some(Ok(7)));
        drop(handle);
        assert_eq!(future_drops.drops(), 1, "and never again");
    });
}

#[test]
fn a_future_its_executor_drops_unfinished_is_dropped_once_and_cancels_its_handle() {
    watchdog_default(|| {
        let tasks = slab();
        let sink = ExceptionSink::new();
        let future_drops = DropFlag::new();
        let guard = future_drops.guard();
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            async move {
                let _guard = guard;
                pending::<u8>().await
            },
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        let outcomes = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&outcomes);
        handle.add_done_callback(move |outcome| seen.borrow_mut().push(outcome));

        let removed = tasks.borrow_mut().remove(id);
        assert_eq!(future_drops.drops(), 0, "the slab only hands the slot back");
        drop(removed);
        assert_eq!(
            future_drops.drops(),
            1,
            "dropping the slot drops the future"
        );
        assert_eq!(*outcomes.borrow(), vec![Err(JoinError::Cancelled)]);
        assert_eq!(handle.try_take(), Some(Err(JoinError::Cancelled)));
        drop(handle);
        assert_eq!(future_drops.drops(), 1);
        assert_eq!(outcomes.borrow().len(), 1, "the callback ran once");
    });
}

#[test]
fn the_output_is_dropped_once_whoever_ends_up_with_it() {
    watchdog_default(|| {
        let tasks = slab();
        let sink = ExceptionSink::new();
        // (a) The handle takes the output; its reader drops it.
        let taken = DropFlag::new();
        let output = taken.guard();
        let (id, handle) = spawn_into(&tasks, &sink, async move { output }, None);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        let output = handle.try_take().expect("finished").expect("no panic");
        drop(handle);
        assert_eq!(taken.drops(), 0, "the output is the reader's now");
        drop(output);
        assert_eq!(taken.drops(), 1);

        // (b) The handle is dropped with the output unread: the cell drops it.
        let unread = DropFlag::new();
        let output = unread.guard();
        let (id, handle) = spawn_into(&tasks, &sink, async move { output }, None);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(unread.drops(), 0, "kept for the handle");
        drop(handle);
        assert_eq!(unread.drops(), 1, "freed with the cell");

        // (c) The handle is gone before the task finishes: nobody will read it.
        let orphan = DropFlag::new();
        let output = orphan.guard();
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            TwoSteps {
                polled: false,
                output: Some(output),
                _guard: DropFlag::new().guard(),
                _probe: None,
            },
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        drop(handle);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(orphan.drops(), 1, "dropped when it was produced");
    });
}

/// A future that, in its first poll, empties the whole slab (as a shutdown from inside
/// a task would) and drops what it took out, itself included.
fn draining(tasks: &Slab, guard: DropGuard, ready: bool) -> impl Future<Output = ()> + 'static {
    let tasks = Rc::clone(tasks);
    std::future::poll_fn(move |_cx| {
        let _ = &guard;
        let drained = tasks.borrow_mut().drain();
        drop(drained);
        if ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
}

#[test]
fn a_task_drained_from_inside_its_own_poll_is_dropped_once_after_the_poll() {
    for ready in [false, true] {
        watchdog_default(move || {
            let tasks = slab();
            let sink = ExceptionSink::new();
            let drops = DropFlag::new();
            let (id, handle) =
                spawn_into(&tasks, &sink, draining(&tasks, drops.guard(), ready), None);
            assert_eq!(step(&tasks, id), StepOutcome::Finished);
            assert!(tasks.borrow().is_empty());
            assert_eq!(
                drops.drops(),
                1,
                "dropped once, by the step (ready: {ready})"
            );
            let expected = if ready {
                Ok(())
            } else {
                Err(JoinError::Cancelled)
            };
            assert_eq!(handle.try_take(), Some(expected));
        });
    }
}

/// Panics when dropped.
struct PanicsOnDrop;

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        panic!("a future's destructor panicked");
    }
}

#[test]
fn a_future_whose_drop_panics_still_cancels_its_handle() {
    watchdog_default(|| {
        let tasks = slab();
        let sink = ExceptionSink::new();
        let bomb = PanicsOnDrop;
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            async move {
                let _bomb = bomb;
                pending::<()>().await
            },
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        let outcomes = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&outcomes);
        handle.add_done_callback(move |outcome| seen.borrow_mut().push(outcome));
        let removed = tasks.borrow_mut().remove(id);
        let unwound = panic::catch_unwind(AssertUnwindSafe(|| drop(removed)));
        assert!(
            unwound.is_err(),
            "the destructor's panic reaches the dropper"
        );
        assert_eq!(handle.try_take(), Some(Err(JoinError::Cancelled)));
        assert_eq!(*outcomes.borrow(), vec![Err(JoinError::Cancelled)]);
    });
}

#[test]
fn the_task_cell_is_freed_once_its_slot_and_its_handle_are_gone() {
    // The label lives in the task cell only, so the count of its `Rc` tells whether
    // the cell is still alive: no pointer to the cell is cloned and kept by mistake.
    watchdog_default(|| {
        let tasks = slab();
        let sink = ExceptionSink::new();
        for handle_first in [true, false] {
            let name: Rc<str> = Rc::from("worker");
            let label = Label::Shared(Rc::clone(&name));
            let future = TwoSteps {
                polled: false,
                output: Some(()),
                _guard: DropFlag::new().guard(),
                _probe: None,
            };
            let (id, handle) = spawn_into(&tasks, &sink, future, Some(label));
            assert_eq!(Rc::strong_count(&name), 2, "one label, in the cell");
            assert_eq!(step(&tasks, id), StepOutcome::Pending);
            assert_eq!(Rc::strong_count(&name), 2, "a step keeps no clone");
            if handle_first {
                drop(handle);
                assert_eq!(Rc::strong_count(&name), 2, "the slot still holds the cell");
                assert_eq!(step(&tasks, id), StepOutcome::Finished);
            } else {
                assert_eq!(step(&tasks, id), StepOutcome::Finished);
                assert_eq!(
                    Rc::strong_count(&name),
                    2,
                    "the handle still holds the cell"
                );
                drop(handle);
            }
            assert_eq!(
                Rc::strong_count(&name),
                1,
                "the cell is freed (handle dropped first: {handle_first})"
            );
        }
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 0);
    });
}

/// Writes its name into a shared log when dropped.
struct Logs(&'static str, Rc<RefCell<Vec<&'static str>>>);

impl Drop for Logs {
    fn drop(&mut self) {
        self.1.borrow_mut().push(self.0);
    }
}

/// Ready at once with its output; holds `_held` until the future is dropped.
struct Arrives {
    output: Option<Logs>,
    _held: Logs,
}

impl Future for Arrives {
    type Output = Logs;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Logs> {
        Poll::Ready(self.output.take().expect("polled once"))
    }
}

#[test]
fn an_output_that_arrives_after_its_handle_was_dropped_is_dropped_at_once() {
    watchdog_default(|| {
        let tasks = slab();
        let sink = ExceptionSink::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        let (output, held) = (
            Logs("output", Rc::clone(&log)),
            Logs("future", Rc::clone(&log)),
        );
        // `held` is a field of the future: dropped with it, not when it returns.
        let future = Arrives {
            output: Some(output),
            _held: held,
        };
        let (id, handle) = spawn_into(&tasks, &sink, future, None);
        drop(handle);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(
            *log.borrow(),
            ["output", "future"],
            "the output is dropped when it arrives, before the step drops the future"
        );
    });
}

#[test]
#[should_panic(expected = "a JoinHandle was polled after it returned its result")]
fn a_join_handle_polled_again_after_it_returned_its_result_panics() {
    let tasks = slab();
    let sink = ExceptionSink::new();
    let (id, handle) = spawn_into(&tasks, &sink, async { 5 }, None);
    assert_eq!(step(&tasks, id), StepOutcome::Finished);
    let mut handle = std::pin::pin!(handle);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    assert!(matches!(handle.as_mut().poll(&mut cx), Poll::Ready(Ok(5))));
    // The result is gone: a second poll is the caller's bug, and says so.
    let _ = handle.as_mut().poll(&mut cx);
}
