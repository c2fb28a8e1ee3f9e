//! Done callbacks on a join handle, on the loop: registered at once, queued as handles.

use std::cell::RefCell;
use std::rc::Rc;

use oneloop_core::hooks::with_current;
use oneloop_core::{EventLoop, JoinError, yield_now};
use oneloop_testkit::watchdog_default;

type Log = Rc<RefCell<Vec<String>>>;

/// Appends `what`, with the loop's turn, to `log`.
fn note(log: &Log, what: &str) {
    let turn = with_current(|core| core.turn()).expect("inside the loop");
    log.borrow_mut().push(format!("{turn}:{what}"));
}

/// Runs `main` on a fresh loop, under the watchdog, with a log it writes into, and
/// returns the log.
fn run_logged<F>(main: impl FnOnce(Log) -> F + Send + 'static) -> Vec<String>
where
    F: Future<Output = ()> + 'static,
{
    watchdog_default(|| {
        let log = Log::default();
        EventLoop::new()
            .run_until_complete(main(Rc::clone(&log)))
            .expect("main finishes");
        log.take()
    })
}

#[test]
fn a_done_callback_runs_in_the_turn_after_the_task_ends_behind_an_earlier_call_soon() {
    let log = run_logged(|seen| async move {
        let core = with_current(Rc::clone).expect("inside the loop");
        let in_child = Rc::clone(&seen);
        let child = core.spawn(async move {
            note(&in_child, "child-ends");
            7
        });
        // Added before the child's first step: it registers now.
        let on_done = Rc::clone(&seen);
        child.add_done_callback(move |outcome| {
            assert_eq!(outcome, Ok(()));
            note(&on_done, "done");
        });
        let soon = Rc::clone(&seen);
        core.call_soon(move || note(&soon, "soon"));
        yield_now().await;
        note(&seen, "main-resumed");
        yield_now().await;
        assert_eq!(
            child.try_take(),
            Some(Ok(7)),
            "the output stays in the handle"
        );
    });
    assert_eq!(log, ["2:child-ends", "2:soon", "2:main-resumed", "3:done"]);
}

#[test]
fn a_done_callback_added_to_a_finished_task_is_queued_at_once() {
    let log = run_logged(|seen| async move {
        let core = with_current(Rc::clone).expect("inside the loop");
        let child = core.spawn(async {});
        yield_now().await;
        assert!(child.is_finished());
        let soon = Rc::clone(&seen);
        core.call_soon(move || note(&soon, "soon"));
        let on_done = Rc::clone(&seen);
        child.add_done_callback(move |_| note(&on_done, "done"));
        note(&seen, "added");
        yield_now().await;
    });
    assert_eq!(log, ["2:added", "3:soon", "3:done"]);
}

#[test]
fn callbacks_run_in_the_order_they_were_added_each_as_a_handle_of_its_own() {
    let (log, labels) = watchdog_default(|| {
        let log = Log::default();
        let labels = Rc::new(RefCell::new(Vec::new()));
        let mut event_loop = EventLoop::new();
        let seen = Rc::clone(&log);
        let child = event_loop.spawn(async {});
        for name in ["first", "second", "third"] {
            let seen = Rc::clone(&seen);
            child.add_done_callback(move |_| note(&seen, name));
        }
        event_loop
            .run_until_complete(async move {
                // The child's step ran just before this one, and queued the three
                // callbacks, each a handle of its own.
                let queued = with_current(|core| core.ready().labels()).expect("in the loop");
                labels.borrow_mut().extend(queued);
                yield_now().await;
                drop(child);
                labels.take()
            })
            .map(|labels| (log.take(), labels))
            .expect("main finishes")
    });
    assert_eq!(log, ["2:first", "2:second", "2:third"]);
    assert_eq!(labels, ["done_callback", "done_callback", "done_callback"]);
}

#[test]
fn a_panic_goes_to_the_callback_and_a_dropped_handle_reports_nothing() {
    let (outcome, reports) = watchdog_default(|| {
        let outcome = Rc::new(RefCell::new(None));
        let reports = Rc::new(RefCell::new(Vec::new()));
        let mut event_loop = EventLoop::new();
        let seen = Rc::clone(&reports);
        event_loop
            .set_exception_handler(move |report| seen.borrow_mut().push(report.message.clone()));
        let child = event_loop.spawn(async {
            yield_now().await;
            panic!("boom");
        });
        let told = Rc::clone(&outcome);
        child.add_done_callback(move |result| *told.borrow_mut() = Some(result));
        // Nobody holds the handle any more: the callback is the outcome's only reader.
        drop(child);
        event_loop
            .run_until_complete(async {
                for _ in 0..3 {
                    yield_now().await;
                }
            })
            .expect("main finishes");
        event_loop.close();
        (outcome.take(), reports.take())
    });
    assert_eq!(
        outcome,
        Some(Err(JoinError::Panicked {
            message: "boom".to_owned()
        }))
    );
    assert!(
        !reports.iter().any(|m| m.contains("never retrieved")),
        "reports: {reports:?}"
    );
}

#[test]
fn a_task_dropped_unfinished_at_close_queues_nothing_on_the_closed_loop() {
    let told = watchdog_default(|| {
        let told = Rc::new(RefCell::new(None));
        let mut event_loop = EventLoop::new();
        let child = event_loop.spawn(std::future::pending::<()>());
        let seen = Rc::clone(&told);
        child.add_done_callback(move |result| *seen.borrow_mut() = Some(result));
        event_loop
            .run_until_complete(yield_now())
            .expect("main finishes");
        event_loop.close();
        assert_eq!(child.try_take(), Some(Err(JoinError::Cancelled)));
        told.take()
    });
    assert_eq!(told, None);
}

#[test]
fn an_awaiting_task_wakes_before_a_done_callback_added_before_it_waited() {
    let log = run_logged(|seen| async move {
        let core = with_current(Rc::clone).expect("inside the loop");
        let child = core.spawn(async { 7 });
        let on_done = Rc::clone(&seen);
        child.add_done_callback(move |_| note(&on_done, "done"));
        // The handle wakes main when the result is written, before the
        // future is dropped and the callbacks are queued.
        let value = child.await.expect("the child returns");
        note(&seen, &format!("main-joined-{value}"));
    });
    assert_eq!(log, ["3:main-joined-7", "3:done"]);
}
