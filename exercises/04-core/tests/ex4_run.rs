//! Exercise 4: run_until_complete — main's result, the stop callback's turn, and what
//! run and Runner cost.

use std::cell::Cell;
use std::rc::Rc;

use crate::common::{Gate, Trace, log, record_reports};
use ex04_core::{
    EventLoop, JoinError, LoopError, RUN_UNTIL_COMPLETE_CB, Runner, gather, run, run_with, spawn,
    yield_now,
};
use oneloop_testkit::{DropFlag, watchdog_default};

#[test]
fn ex4_main_s_output_is_returned() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let out = event_loop.run_until_complete(async {
            yield_now().await;
            "main's output"
        });
        assert_eq!(out, Ok("main's output"));
        assert_eq!(event_loop.live_tasks(), 0);
    });
}

#[test]
fn ex4_the_stop_callback_runs_one_turn_after_main_finishes() {
    watchdog_default(|| {
        // CPython: main's done callback `_run_until_complete_cb` is queued when main
        // finishes in turn T, runs in turn T + 1 and stops the loop after that turn.
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        event_loop.run_until_complete(async {}).unwrap();
        assert_eq!(trace.turn(1), ["main"]);
        assert_eq!(trace.turn(2), [RUN_UNTIL_COMPLETE_CB]);
        assert_eq!(RUN_UNTIL_COMPLETE_CB, "_run_until_complete_cb");
        assert_eq!(event_loop.turn(), 2, "CPython also counts 2");
        assert!(event_loop.ready().is_empty());
        assert!(!event_loop.is_stopping(), "the loop can run again");
    });
}

#[test]
fn ex4_a_panicking_main_is_main_failed_after_the_stop_turn() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let reports = record_reports(event_loop.core());
        let out = event_loop.run_until_complete(async {
            yield_now().await;
            panic!("main broke");
        });
        assert_eq!(
            out,
            Err(LoopError::MainFailed(JoinError::Panicked {
                message: "main broke".into()
            }))
        );
        // The guard's drop queued the stop callback while the panic unwound.
        assert_eq!(trace.turns_of("main"), [1, 2]);
        assert_eq!(trace.turns_of(RUN_UNTIL_COMPLETE_CB), [3]);
        assert_eq!(event_loop.turn(), 3);
        assert!(reports.borrow().is_empty(), "the panic was retrieved");
    });
}

#[test]
fn ex4_stop_before_main_completes_is_stopped_before_complete() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let gate = Gate::default();
        let waiting = gate.clone();
        let core = Rc::clone(event_loop.core());
        event_loop.call_soon_named("stopper", move || core.stop());
        let out = event_loop.run_until_complete(async move {
            waiting.await;
            1
        });
        // asyncio: "Event loop stopped before Future completed."
        assert_eq!(out, Err(LoopError::StoppedBeforeComplete));
        assert_eq!(event_loop.turn(), 1);
        assert_eq!(event_loop.live_tasks(), 1, "main is still alive");
        // Main finishing later stops nothing: run_until_complete disarmed its guard, as
        // asyncio removes its done callback.
        gate.open.set(true);
        gate.wake();
        event_loop.run_once().unwrap();
        assert_eq!(trace.turn(2), ["main"]);
        assert_eq!(event_loop.live_tasks(), 0);
        assert!(event_loop.ready().is_empty(), "no stop callback was queued");
        event_loop.close();
    });
}

#[test]
fn ex4_a_loop_closed_with_main_unfinished_queues_nothing_and_refuses_to_run() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let flag = DropFlag::new();
        let guard = flag.guard();
        let core = Rc::clone(event_loop.core());
        event_loop.call_soon_named("stopper", move || core.stop());
        let out = event_loop.run_until_complete(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        assert_eq!(out, Err(LoopError::StoppedBeforeComplete));
        event_loop.close();
        assert_eq!(flag.drops(), 1, "main was dropped at close");
        assert!(event_loop.ready().is_empty());
        assert_eq!(
            event_loop.run_until_complete(async { 1 }),
            Err(LoopError::Closed)
        );
    });
}

#[test]
fn ex4_each_yield_now_costs_one_turn_and_the_stop_callback_one_more() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        event_loop
            .run_until_complete(async {
                for _ in 0..5 {
                    yield_now().await;
                }
            })
            .unwrap();
        // CPython counts 7 as well: main's six steps, then `_run_until_complete_cb`.
        assert_eq!(trace.turns_of("main"), [1, 2, 3, 4, 5, 6]);
        assert_eq!(trace.turns_of(RUN_UNTIL_COMPLETE_CB), [7]);
        assert_eq!(event_loop.turn(), 7);
    });
}

#[test]
fn ex4_the_stop_turn_matches_cpython_for_gather() {
    watchdog_default(|| {
        // CPython takes 6 turns: children in 2 and 3, gather's done callbacks in 4,
        // main in 5, the stop callback in 6. oneloop has no done-callback hop: 5.
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let out = event_loop
            .run_until_complete(async {
                gather((1..=3).map(|n| async move {
                    yield_now().await;
                    n
                }))
                .await
            })
            .unwrap();
        assert_eq!(out, Ok(vec![1, 2, 3]));
        assert_eq!(trace.turns_of("main"), [1, 4]);
        assert_eq!(trace.turns_of(RUN_UNTIL_COMPLETE_CB), [5]);
        assert_eq!(event_loop.turn(), 5);
    });
}

#[test]
fn ex4_an_empty_program_takes_two_turns() {
    watchdog_default(|| {
        // asyncio.run(main()) with an empty main takes 6 turns in CPython: 2 for main
        // (its step, then the stop callback), 2 for shutdown_asyncgens, 2 for
        // shutdown_default_executor. oneloop has the first two; it has no async
        // generators, and shuts its pool down in a close hook, with no turn.
        let turns = Rc::new(Cell::new(0));
        let seen = Rc::clone(&turns);
        let out = run_with(
            move |event_loop| {
                let core = Rc::clone(event_loop.core());
                event_loop.add_close_hook("count turns", move || seen.set(core.turn()));
            },
            async {},
        );
        assert_eq!(out, Ok(()));
        assert_eq!(turns.get(), 2);
        assert_eq!(run(async { yield_now().await }), Ok(()));
    });
}

#[test]
fn ex4_a_runner_reuses_one_loop() {
    watchdog_default(|| {
        let mut runner = Runner::new();
        let id = runner.event_loop().id();
        assert_eq!(
            runner.run(async {
                yield_now().await;
                1
            }),
            Ok(1)
        );
        let after_first = runner.event_loop().turn();
        assert_eq!(after_first, 3, "two steps of main, then the stop callback");
        assert_eq!(
            runner.run(async {
                yield_now().await;
                2
            }),
            Ok(2)
        );
        assert_eq!(runner.event_loop().id(), id);
        assert_eq!(runner.event_loop().turn(), after_first * 2);
        runner.close();
    });
}

#[test]
fn ex4_closing_drops_leftover_tasks_then_runs_the_close_hooks() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let guard = flag.guard();
        let order = log();
        let mut runner = Runner::new();
        let (hook_order, hook_flag) = (Rc::clone(&order), flag.clone());
        runner
            .event_loop()
            .add_close_hook("pool shutdown", move || {
                let dropped = hook_flag.dropped();
                hook_order
                    .borrow_mut()
                    .push(format!("hook (task dropped: {dropped})"));
            });
        let out = runner.run(async move {
            // Left behind: it waits for ever, holding the guard.
            let _leftover = spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            yield_now().await;
            "main done"
        });
        assert_eq!(out, Ok("main done"));
        assert!(!flag.dropped(), "still alive until close");
        runner.close();
        assert_eq!(flag.drops(), 1);
        assert_eq!(*order.borrow(), ["hook (task dropped: true)"]);
    });
}

#[test]
fn ex4_run_closes_its_loop() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let guard = flag.guard();
        let started = Rc::new(Cell::new(false));
        let seen = Rc::clone(&started);
        let out = run(async move {
            drop(spawn(async move {
                seen.set(true);
                let _guard = guard;
                std::future::pending::<()>().await;
            }));
            yield_now().await;
            5
        });
        assert_eq!(out, Ok(5));
        assert!(started.get());
        assert!(
            flag.dropped(),
            "run cancelled the leftover task by dropping it"
        );
    });
}

#[test]
fn ex4_a_loop_run_inside_another_loops_turn_refuses_before_spawning_main() {
    watchdog_default(|| {
        // asyncio: "Cannot run the event loop while another loop is running", raised
        // before main becomes a task.
        let mut outer = EventLoop::new();
        let ran = Rc::new(Cell::new(false));
        let dropped = DropFlag::new();
        let (seen, guard) = (Rc::clone(&ran), dropped.guard());
        let (refused, inner) = outer
            .run_until_complete(async move {
                let mut inner = EventLoop::new();
                let refused = inner.run_until_complete(async move {
                    let _guard = guard;
                    seen.set(true);
                });
                assert_eq!(inner.live_tasks(), 0, "main was not spawned");
                (refused, inner)
            })
            .unwrap();
        assert_eq!(refused, Err(LoopError::AnotherLoopRunning));
        assert_eq!(dropped.drops(), 1, "the refused future was dropped");
        // Run on its own later, the inner loop works, and the refused main never runs.
        let mut inner = inner;
        assert_eq!(inner.run_until_complete(async { 3 }), Ok(3));
        assert!(!ran.get());
    });
}
