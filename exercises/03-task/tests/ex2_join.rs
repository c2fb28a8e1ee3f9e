//! Exercise 2: the join handle — the output or the panic, and waking the joiner.

mod common;

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;

use common::{Recorder, yield_once};
use ex03_task::{
    ExceptionReport, ExceptionSink, Executor, JoinError, Label, NEVER_RETRIEVED, StepOutcome,
    Tasks, spawn_into, step,
};
use oneloop_testkit::{CountingWaker, watchdog_default};

/// An exception handler that keeps every report.
fn recording(executor: &Executor) -> Rc<RefCell<Vec<ExceptionReport>>> {
    let reports = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&reports);
    executor.set_exception_handler(move |report| sink.borrow_mut().push(report.clone()));
    reports
}

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

#[test]
fn ex2_a_panicking_task_gives_an_error_with_its_message() {
    watchdog_default(|| {
        let executor = Executor::new();
        let reports = recording(&executor);
        let child = executor.spawn(async {
            yield_once().await;
            panic!("the disk is full");
        });
        let result = executor
            .block_on(child)
            .expect("main itself does not panic");
        assert_eq!(
            result,
            Err(JoinError::Panicked {
                message: "the disk is full".into()
            })
        );
        assert!(
            reports.borrow().is_empty(),
            "a retrieved panic is not reported"
        );
    });
}

#[test]
fn ex2_a_panic_whose_handle_was_dropped_is_reported_as_never_retrieved() {
    watchdog_default(|| {
        let executor = Executor::new();
        let reports = recording(&executor);
        drop(executor.spawn_named("doomed", async {
            yield_once().await;
            panic!("boom {}", 42);
        }));
        executor.run_until_idle();
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].message, NEVER_RETRIEVED);
        assert_eq!(reports[0].label, Label::Static("doomed"));
        assert_eq!(reports[0].panic, "boom 42");
    });
}

#[test]
fn ex2_a_handle_dropped_holding_an_unread_panic_reports_it() {
    watchdog_default(|| {
        let executor = Executor::new();
        let reports = recording(&executor);
        let handle = executor.spawn(async { panic!("unread") });
        executor.run_until_idle();
        assert!(handle.is_finished());
        assert!(
            reports.borrow().is_empty(),
            "the handle could still read it"
        );
        drop(handle);
        assert_eq!(reports.borrow().len(), 1);
        assert_eq!(reports.borrow()[0].panic, "unread");
    });
}

#[test]
fn ex2_an_output_nobody_reads_is_dropped_quietly() {
    watchdog_default(|| {
        let executor = Executor::new();
        let reports = recording(&executor);
        let flag = oneloop_testkit::DropFlag::new();
        let guard = flag.guard();
        drop(executor.spawn(async move { guard }));
        executor.run_until_idle();
        assert!(flag.dropped(), "the output was dropped");
        assert!(reports.borrow().is_empty());
    });
}

#[test]
fn ex2_a_task_dropped_unfinished_gives_cancelled_and_wakes_the_joiner() {
    watchdog_default(|| {
        let executor = Executor::new();
        let handle = executor.spawn(std::future::pending::<()>());
        executor.run_until_idle();
        let counter = CountingWaker::new();
        let mut handle = pin!(handle);
        assert_eq!(
            counter.with_context(|cx| handle.as_mut().poll(cx)),
            Poll::Pending
        );
        drop(executor);
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
        let executor = Executor::new();
        let slow = executor.spawn(async {
            for _ in 0..3 {
                yield_once().await;
            }
            10
        });
        let total = executor
            .block_on(async move { slow.await.unwrap() + 1 })
            .unwrap();
        assert_eq!(total, 11);
    });
}
