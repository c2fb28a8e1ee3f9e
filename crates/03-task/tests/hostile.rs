//! The task cell under attack through the public API: futures and outputs whose poll or
//! drop reaches back into the slab, the join handle or the task itself. Each test counts
//! that the future is dropped exactly once and the output exactly once, and that the
//! slab is left consistent (a task reusing a slot is not disturbed by the old one).

use std::cell::{Cell, RefCell};
use std::future::{Future, pending, poll_fn};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::task::Poll;

use oneloop_task::hooks::{ExceptionSink, spawn_into};
use oneloop_task::{JoinError, JoinHandle, NEVER_RETRIEVED, StepOutcome, TaskId, step};
use oneloop_testkit::{DropFlag, DropGuard, watchdog_default};

use crate::common::{Slab, sink, slab};

/// A handle the task itself (or another task) can reach and drop.
type SharedHandle<T> = Rc<RefCell<Option<JoinHandle<T>>>>;

/// A future that runs `body` on each poll, holding `guard` (dropped with the future).
fn with_guard<T>(
    guard: DropGuard,
    mut body: impl FnMut() -> Poll<T> + 'static,
) -> impl Future<Output = T> + 'static {
    poll_fn(move |_cx| {
        let _ = &guard;
        body()
    })
}

#[test]
fn a_future_that_drops_its_own_handle_inside_its_poll_is_dropped_once() {
    for finish in [false, true] {
        watchdog_default(move || {
            let tasks = slab();
            let (sink, reports) = sink();
            let future_drops = DropFlag::new();
            let output_drops = DropFlag::new();
            let own: SharedHandle<DropGuard> = Rc::new(RefCell::new(None));
            let reach = Rc::clone(&own);
            let output = RefCell::new(Some(output_drops.guard()));
            let future = with_guard(future_drops.guard(), move || {
                // Dropping the handle here detaches the cell while the poll holds it.
                drop(reach.borrow_mut().take());
                if finish {
                    Poll::Ready(output.borrow_mut().take().expect("polled once"))
                } else {
                    Poll::Pending
                }
            });
            let (id, handle) = spawn_into(&tasks, &sink, future, None);
            *own.borrow_mut() = Some(handle);

            let outcome = step(&tasks, id);
            if finish {
                assert_eq!(outcome, StepOutcome::Finished);
                assert_eq!(future_drops.drops(), 1, "dropped by the step");
                assert_eq!(output_drops.drops(), 1, "nobody can read it: dropped");
            } else {
                assert_eq!(outcome, StepOutcome::Pending);
                assert_eq!(future_drops.drops(), 0, "a detached task keeps running");
                let drained = tasks.borrow_mut().drain();
                drop(drained);
                assert_eq!(future_drops.drops(), 1, "dropped with the slab's slot");
                assert_eq!(
                    output_drops.drops(),
                    1,
                    "never produced: dropped with the future"
                );
            }
            assert!(reports.borrow().is_empty(), "nothing failed");
        });
    }
}

/// The task spawned from inside another task's poll, kept for the test to inspect.
type Newcomer = Rc<RefCell<Option<(TaskId, JoinHandle<()>)>>>;

#[test]
fn a_future_that_drains_and_spawns_into_the_same_slot_leaves_the_new_task_alone() {
    for finish in [false, true] {
        watchdog_default(move || {
            let tasks = slab();
            let (sink, _reports) = sink();
            let old_drops = DropFlag::new();
            let new_drops = DropFlag::new();
            let newcomer: Newcomer = Rc::new(RefCell::new(None));
            let (slab_in, sink_in, made, new_guard) = (
                Rc::clone(&tasks),
                Rc::clone(&sink),
                Rc::clone(&newcomer),
                RefCell::new(Some(new_drops.guard())),
            );
            let future = with_guard(old_drops.guard(), move || {
                // Empty the slab (this task's slot included), then spawn: the new task
                // takes the freed slot, with the next generation.
                let drained = slab_in.borrow_mut().drain();
                drop(drained);
                let guard = new_guard.borrow_mut().take().expect("polled once");
                let spawned = spawn_into(
                    &slab_in,
                    &sink_in,
                    async move {
                        let _guard = guard;
                        pending::<()>().await
                    },
                    None,
                );
                *made.borrow_mut() = Some(spawned);
                if finish {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            });
            let (old, old_handle) = spawn_into(&tasks, &sink, future, None);

            assert_eq!(step(&tasks, old), StepOutcome::Finished);
            assert_eq!(old_drops.drops(), 1, "the old future is dropped once");
            let (new, new_handle) = newcomer.borrow_mut().take().expect("spawned");
            assert_eq!(new.index(), old.index(), "the slot was reused");
            assert_ne!(new, old);
            let expected = if finish {
                Ok(())
            } else {
                Err(JoinError::Cancelled)
            };
            assert_eq!(old_handle.try_take(), Some(expected));

            assert_eq!(new_drops.drops(), 0, "the new task is untouched");
            let slab_now = tasks.borrow();
            let slot = slab_now.get(new).expect("the new task is live");
            assert!(!slot.is_running(), "and idle, not left marked running");
            drop(slab_now);
            assert_eq!(tasks.borrow().len(), 1);
            assert_eq!(step(&tasks, new), StepOutcome::Pending, "it can still run");
            assert!(!new_handle.is_finished());
            let drained = tasks.borrow_mut().drain();
            drop(drained);
            assert_eq!(new_drops.drops(), 1);
            assert_eq!(old_drops.drops(), 1);
        });
    }
}

#[test]
fn a_future_that_panics_is_dropped_once_and_its_handle_gets_the_panic() {
    for keep_handle in [true, false] {
        watchdog_default(move || {
            let tasks = slab();
            let (sink, reports) = sink();
            let future_drops = DropFlag::new();
            let future = with_guard(future_drops.guard(), || -> Poll<DropGuard> {
                panic!("the future gave up")
            });
            let (id, handle) = spawn_into(&tasks, &sink, future, None);
            let handle = if keep_handle {
                Some(handle)
            } else {
                drop(handle);
                None
            };
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| step(&tasks, id)));
            assert_eq!(
                outcome.ok(),
                Some(StepOutcome::Finished),
                "the panic stays inside the step"
            );
            assert_eq!(future_drops.drops(), 1, "dropped once, after the poll");
            assert!(tasks.borrow().is_empty(), "its slot is free");
            if let Some(handle) = handle {
                let taken = handle.try_take().expect("finished");
                assert!(
                    matches!(taken, Err(JoinError::Panicked { ref message }) if message == "the future gave up")
                );
                assert!(reports.borrow().is_empty(), "the handle read it");
            } else {
                let reports = reports.borrow();
                assert_eq!(reports.len(), 1, "reported once: {reports:?}");
                assert_eq!(reports[0].message, NEVER_RETRIEVED);
            }
        });
    }
}

/// When dropped, spawns a task into the slab and drains the slab (its own task's slot
/// is gone by then), counting its drops.
struct ReentersOnDrop {
    tasks: Slab,
    sink: Rc<ExceptionSink>,
    spawned: Rc<Cell<Option<TaskId>>>,
    drops: Rc<Cell<usize>>,
    child_drops: DropFlag,
}

impl Drop for ReentersOnDrop {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        let guard = self.child_drops.guard();
        let (id, handle) = spawn_into(
            &self.tasks,
            &self.sink,
            async move {
                let _guard = guard;
                pending::<()>().await
            },
            None,
        );
        drop(handle);
        self.spawned.set(Some(id));
        // A second, nested drain: drops the child just spawned.
        let drained = self.tasks.borrow_mut().drain();
        drop(drained);
    }
}

#[test]
fn a_future_whose_drop_spawns_and_drains_is_dropped_once() {
    for finish in [true, false] {
        watchdog_default(move || {
            let tasks = slab();
            let (sink, _reports) = sink();
            let drops = Rc::new(Cell::new(0));
            let child_drops = DropFlag::new();
            let spawned = Rc::new(Cell::new(None));
            let bomb = ReentersOnDrop {
                tasks: Rc::clone(&tasks),
                sink: Rc::clone(&sink),
                spawned: Rc::clone(&spawned),
                drops: Rc::clone(&drops),
                child_drops: child_drops.clone(),
            };
            let polled = Cell::new(false);
            let future = poll_fn(move |_cx| {
                let _ = &bomb;
                if finish || polled.replace(true) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            });
            let (id, handle) = spawn_into(&tasks, &sink, future, None);
            if finish {
                assert_eq!(step(&tasks, id), StepOutcome::Finished);
            } else {
                assert_eq!(step(&tasks, id), StepOutcome::Pending);
                let drained = tasks.borrow_mut().drain();
                drop(drained);
            }
            assert_eq!(drops.get(), 1, "the future's drop ran once");
            assert!(spawned.get().is_some(), "its drop could spawn");
            assert_eq!(child_drops.drops(), 1, "and drain what it spawned");
            assert!(tasks.borrow().is_empty());
            let expected = if finish {
                Ok(())
            } else {
                Err(JoinError::Cancelled)
            };
            assert_eq!(handle.try_take(), Some(expected));
            drop(handle);
            assert_eq!(drops.get(), 1);
        });
    }
}

#[test]
fn a_handle_dropped_by_another_task_while_the_future_runs_drops_the_output_once() {
    watchdog_default(|| {
        let tasks = slab();
        let (sink, reports) = sink();
        let future_drops = DropFlag::new();
        let output_drops = DropFlag::new();
        let shared: SharedHandle<DropGuard> = Rc::new(RefCell::new(None));

        // Task `dropper` drops the worker's handle when it runs.
        let reach = Rc::clone(&shared);
        let (dropper, _dropper_handle) = spawn_into(
            &tasks,
            &sink,
            poll_fn(move |_cx| {
                drop(reach.borrow_mut().take());
                Poll::Ready(())
            }),
            None,
        );
        // The worker runs the dropper's step from inside its own poll, then finishes.
        let (slab_in, output) = (Rc::clone(&tasks), RefCell::new(Some(output_drops.guard())));
        let worker = with_guard(future_drops.guard(), move || {
            assert_eq!(step(&slab_in, dropper), StepOutcome::Finished);
            Poll::Ready(output.borrow_mut().take().expect("polled once"))
        });
        let (id, handle) = spawn_into(&tasks, &sink, worker, None);
        *shared.borrow_mut() = Some(handle);

        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert!(shared.borrow().is_none(), "the dropper ran inside the poll");
        assert_eq!(future_drops.drops(), 1);
        assert_eq!(output_drops.drops(), 1, "nobody reads it: dropped once");
        assert!(tasks.borrow().is_empty());
        assert!(reports.borrow().is_empty());
    });
}

/// An output that spawns a task into the slab when it is dropped.
struct SpawnsOnDrop {
    tasks: Slab,
    sink: Rc<ExceptionSink>,
    drops: Rc<Cell<usize>>,
}

impl Drop for SpawnsOnDrop {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        let (_id, handle) = spawn_into(&self.tasks, &self.sink, async {}, None);
        drop(handle);
    }
}

#[test]
fn an_output_whose_drop_spawns_is_dropped_once_wherever_it_is_dropped() {
    // Unread (handle dropped first: dropped inside the step), unread (handle dropped
    // after: dropped with the cell), and taken (dropped by the reader).
    for case in ["detached", "unread", "taken"] {
        watchdog_default(move || {
            let tasks = slab();
            let (sink, _reports) = sink();
            let drops = Rc::new(Cell::new(0));
            let output = RefCell::new(Some(SpawnsOnDrop {
                tasks: Rc::clone(&tasks),
                sink: Rc::clone(&sink),
                drops: Rc::clone(&drops),
            }));
            let future_drops = DropFlag::new();
            let future = with_guard(future_drops.guard(), move || {
                Poll::Ready(output.borrow_mut().take().expect("polled once"))
            });
            let (id, handle) = spawn_into(&tasks, &sink, future, None);
            let handle = if case == "detached" {
                drop(handle);
                None
            } else {
                Some(handle)
            };
            assert_eq!(step(&tasks, id), StepOutcome::Finished);
            assert_eq!(future_drops.drops(), 1);
            if let Some(handle) = handle {
                assert_eq!(drops.get(), 0, "kept for the handle ({case})");
                if case == "taken" {
                    let output = handle.try_take().expect("finished");
                    drop(handle);
                    assert_eq!(drops.get(), 0, "the reader holds it");
                    drop(output);
                } else {
                    drop(handle);
                }
            }
            assert_eq!(drops.get(), 1, "dropped once ({case})");
            assert_eq!(tasks.borrow().len(), 1, "its drop spawned one task");
        });
    }
}
