//! Exercise 2: the join handle — the output or the panic, and waking the joiner.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use crate::common::{Bench, Recorder, yield_once};
use ex03_task::hooks::{ExceptionSink, spawn_into};
use ex03_task::{JoinError, JoinHandle, Label, NEVER_RETRIEVED, StepOutcome, Tasks, step};
use oneloop_testkit::{CloneCountingWaker, CountingWaker, watchdog_default};

#[test]
fn ex2_a_join_handle_gives_the_output() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(&tasks, &sink, async { "done" }, None);
        assert!(!handle.is_finished());
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert!(handle.is_finished());
        let counter = CountingWaker::new();
        let mut handle = pin!(handle);
        let polled = counter.with_context(|cx| handle.as_mut().poll(cx));
        assert_eq!(polled, Poll::Ready(Ok("done")));
    });
}

#[test]
fn ex2_the_joiner_is_woken_once_when_the_task_finishes() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            async {
                yield_once().await;
                5
            },
            None,
        );
        let counter = CountingWaker::new();
        let mut handle = pin!(handle);
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        // Polled twice while pending: one waker kept, not two.
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        assert_eq!(counter.live_wakers(), 1);
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(counter.wakes(), 0, "not finished yet");
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(counter.wakes(), 1, "finishing wakes the joiner");
        assert_eq!(counter.live_wakers(), 0, "and lets its waker go");
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Ready(Ok(5))
        );
    });
}

thread_local! {
    /// What a [`Probe`] waker does when woken, on this thread.
    static ON_WAKE: RefCell<Option<Box<dyn Fn()>>> = RefCell::new(None);
}

/// A waker whose wake runs this thread's `ON_WAKE`: waking is user code, and user code
/// may look at anything, including the handle it is about to poll.
struct Probe;

impl Wake for Probe {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        ON_WAKE.with(|on_wake| {
            if let Some(on_wake) = &*on_wake.borrow() {
                on_wake();
            }
        });
    }
}

#[test]
fn ex2_the_joiner_is_woken_with_the_cell_released() {
    watchdog_default(|| {
        let bench = Bench::new();
        let handle = bench.spawn_named("child", async {
            yield_once().await;
            1
        });
        let handle: Rc<RefCell<JoinHandle<i32>>> = Rc::new(RefCell::new(handle));
        let readable = Rc::new(Cell::new(None));
        let (reader, seen) = (Rc::clone(&handle), Rc::clone(&readable));
        ON_WAKE.with(|on_wake| {
            *on_wake.borrow_mut() = Some(Box::new(move || {
                let looked =
                    panic::catch_unwind(AssertUnwindSafe(|| reader.borrow().is_finished()));
                seen.set(Some(looked));
            }));
        });
        let waker = Waker::from(Arc::new(Probe));
        let mut cx = Context::from_waker(&waker);
        let polled = Pin::new(&mut *handle.borrow_mut()).poll(&mut cx);
        assert!(polled.is_pending());
        bench.run();
        let looked = readable.take().expect("finishing woke the joiner");
        assert!(
            matches!(looked, Ok(true)),
            "the joiner's wake could read the cell (it is not borrowed) and saw the result"
        );
        ON_WAKE.with(|on_wake| on_wake.borrow_mut().take());
    });
}

#[test]
fn ex2_a_dropped_handle_lets_go_of_the_joiners_waker() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let sink = ExceptionSink::new();
        let (_id, handle) = spawn_into(&tasks, &sink, std::future::pending::<()>(), None);
        let counter = CountingWaker::new();
        let mut handle = Box::pin(handle);
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        assert_eq!(
            counter.live_wakers(),
            1,
            "the handle keeps the joiner's waker"
        );
        drop(handle);
        assert_eq!(
            counter.live_wakers(),
            0,
            "nobody can await a dropped handle: its joiner's waker is let go"
        );
    });
}

#[test]
fn ex2_a_panicking_task_gives_an_error_with_its_message() {
    watchdog_default(|| {
        let bench = Bench::new();
        let child = bench.spawn_named("child", async {
            yield_once().await;
            panic!("the disk is full");
        });
        let main = bench.spawn_named("main", child);
        bench.run();
        assert_eq!(
            main.try_take(),
            Some(Ok(Err(JoinError::Panicked {
                message: "the disk is full".into()
            })))
        );
        assert!(
            bench.reports.borrow().is_empty(),
            "a retrieved panic is not reported"
        );
    });
}

#[test]
fn ex2_a_panic_whose_handle_was_dropped_is_reported_as_never_retrieved() {
    watchdog_default(|| {
        let bench = Bench::new();
        drop(bench.spawn_named("doomed", async {
            yield_once().await;
            panic!("boom {}", 42);
        }));
        bench.run();
        let reports = bench.reports.borrow();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].message, NEVER_RETRIEVED);
        assert_eq!(reports[0].label, Label::Static("doomed"));
        assert_eq!(reports[0].panic, "boom 42");
    });
}

#[test]
fn ex2_a_handle_dropped_holding_an_unread_panic_reports_it() {
    watchdog_default(|| {
        let bench = Bench::new();
        let handle = bench.spawn_named("unread", async { panic!("unread") });
        bench.run();
        assert!(handle.is_finished());
        assert!(
            bench.reports.borrow().is_empty(),
            "the handle could still read it"
        );
        drop(handle);
        assert_eq!(bench.reports.borrow().len(), 1);
        assert_eq!(bench.reports.borrow()[0].panic, "unread");
    });
}

#[test]
fn ex2_an_output_nobody_reads_is_dropped_quietly() {
    watchdog_default(|| {
        let bench = Bench::new();
        let flag = oneloop_testkit::DropFlag::new();
        let guard = flag.guard();
        drop(bench.spawn_named("output", async move { guard }));
        bench.run();
        assert!(flag.dropped(), "the output was dropped");
        assert!(bench.reports.borrow().is_empty());
    });
}

#[test]
fn ex2_a_task_dropped_unfinished_gives_cancelled_and_wakes_the_joiner() {
    watchdog_default(|| {
        let bench = Bench::new();
        let handle = bench.spawn_named("waiting", std::future::pending::<()>());
        bench.run();
        let counter = CountingWaker::new();
        let mut handle = pin!(handle);
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        // Dropping the slab drops the unfinished future, as a shut-down executor does.
        drop(bench);
        assert_eq!(counter.wakes(), 1);
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Ready(Err(JoinError::Cancelled))
        );
    });
}

#[test]
fn ex2_a_task_can_await_another_tasks_handle() {
    watchdog_default(|| {
        let bench = Bench::new();
        let slow = bench.spawn_named("slow", async {
            for _ in 0..3 {
                yield_once().await;
            }
            10
        });
        let main = bench.spawn_named("main", async move { slow.await.unwrap() + 1 });
        bench.run();
        assert_eq!(main.try_take(), Some(Ok(11)));
    });
}

#[test]
fn ex2_a_handle_polled_by_a_new_waker_wakes_the_new_one() {
    watchdog_default(|| {
        // A joiner may move between tasks: the last waker the handle was polled with
        // is the one woken.
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            async {
                yield_once().await;
                3
            },
            None,
        );
        let (old, new) = (CountingWaker::new(), CountingWaker::new());
        let mut handle = pin!(handle);
        assert_eq!(
            old.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        assert_eq!(
            new.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        assert_eq!(old.live_wakers(), 0, "the old waker is let go");
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!((old.wakes(), new.wakes()), (0, 1));
    });
}

#[test]
fn ex2_a_handle_polled_again_by_the_same_task_keeps_its_waker() {
    watchdog_default(|| {
        // A joiner is often polled again by the task it already knows (a spurious
        // wake, a `select`): a waker that would wake the same task is kept, not cloned.
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            async {
                yield_once().await;
                4
            },
            None,
        );
        let counter = CloneCountingWaker::new();
        let mut handle = pin!(handle);
        for _ in 0..3 {
            assert_eq!(
                counter.with_context(|cx| handle.as_mut().poll(cx)),
                Poll::Pending
            );
        }
        assert_eq!(
            counter.clones(),
            1,
            "one clone, on the first poll; the later polls found it would wake the same task"
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        assert_eq!(counter.wakes(), 1);
    });
}

#[test]
fn ex2_a_handle_polled_after_it_returned_its_result_panics() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Recorder::new()));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(&tasks, &sink, async { 1 }, None);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        let counter = CountingWaker::new();
        let mut handle = pin!(handle);
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Ready(Ok(1))
        );
        let again = panic::catch_unwind(AssertUnwindSafe(|| {
            counter.with_context(|cx| handle.as_mut().poll(cx))
        }));
        assert!(
            again.is_err(),
            "the result was moved out: a second poll panics"
        );
    });
}

thread_local! {
    /// What a [`DropProbe`] waker does when its last clone is dropped.
    static ON_DROP: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
}

/// A waker that wakes nothing and runs [`ON_DROP`] when it is dropped.
struct DropProbe;

impl Wake for DropProbe {
    fn wake(self: Arc<Self>) {}
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        let then = ON_DROP.with(|slot| slot.borrow_mut().take());
        if let Some(then) = then {
            then();
        }
    }
}

#[test]
fn ex2_a_replaced_joiner_waker_is_dropped_with_the_cell_released() {
    watchdog_default(|| {
        // A waker's drop is user code. The old joiner's waker here finishes the task
        // when it is dropped, which writes the result to the cell: that must not find
        // the cell borrowed by the `poll` that replaced the waker.
        let tasks = Rc::new(RefCell::new(Tasks::new(Recorder::new())));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(
            &tasks,
            &sink,
            async {
                yield_once().await;
                2
            },
            None,
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        let finished = Rc::new(Cell::new(None));
        let (slab, seen) = (Rc::clone(&tasks), Rc::clone(&finished));
        ON_DROP.with(|slot| {
            *slot.borrow_mut() = Some(Box::new(move || {
                let stepped = panic::catch_unwind(AssertUnwindSafe(|| step(&slab, id)));
                seen.set(Some(stepped.ok()));
            }));
        });
        let mut handle = pin!(handle);
        let old = Waker::from(Arc::new(DropProbe));
        let polled = handle.as_mut().poll(&mut Context::from_waker(&old));
        assert!(polled.is_pending());
        drop(old);
        let new = CountingWaker::new();
        let _ = new.with_context(|cx| handle.as_mut().poll(cx));
        assert_eq!(
            finished.take(),
            Some(Some(StepOutcome::Finished)),
            "the old waker's drop could finish the task"
        );
        assert_eq!(new.wakes(), 1, "and the result woke the new joiner");
        assert!(handle.is_finished());
    });
}
