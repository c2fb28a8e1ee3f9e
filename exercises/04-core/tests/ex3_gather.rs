//! Exercise 3: gather — results in argument order, turns set by depth, not by count.

use std::rc::Rc;
use std::time::Duration;

use crate::common::{Gate, Trace, record_reports, until_done, yield_once};
use ex04_core::{EventLoop, JoinError, Label, NEVER_RETRIEVED, gather};
use oneloop_testkit::{watchdog, watchdog_default};

/// Runs `main` gathering `n` children that each yield once; returns the turn in which
/// main finished.
fn turns_to_gather(n: usize) -> (u64, Rc<Trace>) {
    let mut event_loop = EventLoop::new();
    let trace = Trace::on(&event_loop);
    let outputs = until_done(&mut event_loop, async move {
        gather((0..n).map(|i| async move {
            yield_once().await;
            i
        }))
        .await
        .unwrap()
    })
    .unwrap();
    assert_eq!(outputs, (0..n).collect::<Vec<_>>());
    (event_loop.turn(), trace)
}

/// The error a child that panicked with `message` gives.
fn panicked(message: &str) -> JoinError {
    JoinError::Panicked {
        message: message.into(),
    }
}

#[test]
fn ex3_gather_returns_results_in_argument_order() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let outputs = until_done(&mut event_loop, async {
            // The first child finishes last, the last child first.
            gather((0..5).map(|i| async move {
                for _ in 0..(5 - i) {
                    yield_once().await;
                }
                i * 100
            }))
            .await
        })
        .unwrap();
        assert_eq!(outputs, Ok(vec![0, 100, 200, 300, 400]));
    });
}

#[test]
fn ex3_a_child_done_first_in_the_middle_hides_none_of_the_ones_after_it() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let outputs = until_done(&mut event_loop, async {
            // The middle child finishes first, the last one next, the first one last:
            // a poll that stops at a finished child never looks at the last one again.
            gather(
                [3, 1, 2]
                    .into_iter()
                    .enumerate()
                    .map(|(i, yields)| async move {
                        for _ in 0..yields {
                            yield_once().await;
                        }
                        i * 100
                    }),
            )
            .await
        })
        .expect("main finishes (a stall means a child's result was never taken)");
        assert_eq!(outputs, Ok(vec![0, 100, 200]));
    });
}

#[test]
fn ex3_gathering_three_children_that_yield_once_resumes_main_in_turn_four() {
    watchdog_default(|| {
        let (turns, trace) = turns_to_gather(3);
        // CPython's main resumes in turn 5: its children finish in turn 3, gather's
        // done callbacks run in turn 4, and the last of them wakes main. Here the
        // children's join handles wake main directly: turn 4 of CPython vanishes.
        // (run_until_complete's stop callback then takes one more turn in both: see
        // ex4_the_stop_turn_matches_cpython_for_gather.)
        assert_eq!(turns, 4);
        assert_eq!(
            trace.turn(1),
            ["main"],
            "main's first step spawns the children"
        );
        assert_eq!(trace.turn(2).len(), 3, "the children's first steps");
        assert!(!trace.turn(2).contains(&"main".to_string()));
        assert_eq!(trace.turn(3).len(), 3, "their second steps: they finish");
        assert_eq!(trace.turn(4), ["main"], "main resumes, once");
    });
}

#[test]
fn ex3_gathering_10_or_1000_children_costs_the_same_turns() {
    watchdog_default(|| {
        let (ten, _) = turns_to_gather(10);
        let (thousand, trace) = turns_to_gather(1000);
        assert_eq!(
            ten, thousand,
            "turns follow the depth of suspension, not the count"
        );
        assert_eq!(trace.turn(3).len(), 1000);
        assert_eq!(
            trace.turn(4),
            ["main"],
            "a thousand wakes of main queue one step"
        );
    });
}

#[test]
fn ex3_a_panicking_child_makes_gather_return_its_error() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let result = until_done(&mut event_loop, async {
            gather((0..3).map(|i| async move {
                yield_once().await;
                if i == 1 {
                    panic!("child {i} failed");
                }
                i
            }))
            .await
        })
        .unwrap();
        assert_eq!(result, Err(panicked("child 1 failed")));
    });
}

#[test]
fn ex3_a_panic_comes_back_without_waiting_for_the_children_before_it() {
    // A gather that waited for its handles one by one would sit on child 0 for ever;
    // the shorter watchdog turns that into a quick failure.
    watchdog(Duration::from_secs(3), || {
        let mut event_loop = EventLoop::new();
        let never = Gate::default();
        let result = until_done(&mut event_loop, async move {
            gather((0..2).map(|i| {
                let never = never.clone();
                async move {
                    if i == 0 {
                        never.await; // child 0 never finishes
                    } else {
                        yield_once().await;
                        panic!("child 1 failed");
                    }
                }
            }))
            .await
        })
        .unwrap();
        assert_eq!(result, Err(panicked("child 1 failed")));
    });
}

#[test]
fn ex3_a_panic_after_gather_returned_an_error_goes_to_the_exception_handler() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(event_loop.core());
        let result = until_done(&mut event_loop, async {
            gather((0..2).map(|i| async move {
                yield_once().await;
                if i == 1 {
                    yield_once().await; // child 1 fails one turn after child 0
                }
                panic!("child {i} failed");
            }))
            .await
        })
        .unwrap();
        assert_eq!(result, Err(panicked("child 0 failed")));
        // Child 1 panicked after the Gather (and its handle) was dropped: nobody can
        // retrieve it, so it is reported. asyncio's gather marks it retrieved instead.
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].message, NEVER_RETRIEVED);
        assert_eq!(reports[0].panic, "child 1 failed");
        assert!(matches!(reports[0].label, Label::Task(_)));
    });
}

#[test]
fn ex3_gathering_nothing_is_ready_at_once() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let outputs = until_done(&mut event_loop, async {
            gather(Vec::<std::future::Ready<u8>>::new()).await
        })
        .unwrap();
        assert_eq!(outputs, Ok(vec![]));
        assert_eq!(event_loop.turn(), 1);
    });
}
