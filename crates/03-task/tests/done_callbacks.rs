//! Done callbacks on a join handle, under this stage's naive executor.

use std::cell::RefCell;
use std::rc::Rc;

use oneloop_task::{Executor, JoinError};

#[test]
fn the_naive_executor_runs_a_done_callback_in_the_step_that_ends_the_task() {
    let executor = Executor::new();
    let log = Rc::new(RefCell::new(Vec::new()));
    let in_task = Rc::clone(&log);
    let handle = executor.spawn(async move {
        in_task.borrow_mut().push("task-ends".to_owned());
        5
    });
    let in_callback = Rc::clone(&log);
    handle.add_done_callback(move |outcome| {
        in_callback.borrow_mut().push(format!("done-{outcome:?}"));
    });
    assert!(log.borrow().is_empty(), "registering runs nothing");
    assert_eq!(executor.run_until_idle(), 1, "one step");
    // No queue of its own: the callback ran as the task's future was dropped.
    assert_eq!(*log.borrow(), ["task-ends", "done-Ok(())"]);
    assert_eq!(handle.try_take(), Some(Ok(5)));
}

#[test]
fn a_task_dropped_with_its_executor_tells_its_callback_it_was_cancelled() {
    let executor = Executor::new();
    let told = Rc::new(RefCell::new(None));
    let handle = executor.spawn(std::future::pending::<()>());
    let seen = Rc::clone(&told);
    handle.add_done_callback(move |outcome| *seen.borrow_mut() = Some(outcome));
    drop(executor);
    assert_eq!(*told.borrow(), Some(Err(JoinError::Cancelled)));
}

#[test]
fn a_waiting_done_callback_reads_the_panic_of_a_task_whose_handle_was_dropped() {
    let executor = Executor::new();
    let reports = Rc::new(RefCell::new(Vec::new()));
    let kept = Rc::clone(&reports);
    executor.set_exception_handler(move |report| kept.borrow_mut().push(report.clone()));
    let handle = executor.spawn(async move {
        // One bare yield, so that the handle is dropped while the task still runs.
        oneloop_coroutine::yield_now().await;
        panic!("nobody awaits me");
    });
    let told = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&told);
    handle.add_done_callback(move |outcome| seen.borrow_mut().push(outcome));
    assert_eq!(executor.run_with_budget(1).polls, 1, "the task is pending");
    drop(handle);
    executor.run_until_idle();
    assert_eq!(
        *told.borrow(),
        [Err(JoinError::Panicked {
            message: "nobody awaits me".into()
        })],
        "the callback is told the panic"
    );
    assert!(
        reports.borrow().is_empty(),
        "a panic the callback read is not reported: {:?}",
        reports.borrow()
    );
}
