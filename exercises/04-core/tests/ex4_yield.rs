//! Exercise 4: yield_now — taking turns; and what run and Runner cost.

mod common;

use std::cell::Cell;
use std::rc::Rc;

use common::{Trace, log};
use ex04_core::{EventLoop, Runner, run, spawn, yield_now};
use oneloop_testkit::{DropFlag, watchdog_default};

/// Two CPU-bound tasks print three steps each, yielding between steps or not.
fn two_workers(yielding: bool) -> Vec<String> {
    let mut event_loop = EventLoop::new();
    let seen = log();
    let inner = Rc::clone(&seen);
    event_loop
        .run_until_complete(async move {
            let workers = ["A", "B"].map(|name| {
                let seen = Rc::clone(&inner);
                spawn(async move {
                    for step in 0..3 {
                        seen.borrow_mut().push(format!("{name}{step}"));
                        if yielding {
                            yield_now().await;
                        }
                    }
                })
            });
            for worker in workers {
                worker.await.unwrap();
            }
        })
        .unwrap();
    seen.borrow().clone()
}

#[test]
fn ex4_two_cpu_tasks_take_turns_when_they_yield() {
    watchdog_default(|| {
        assert_eq!(two_workers(true), ["A0", "B0", "A1", "B1", "A2", "B2"]);
    });
}

#[test]
fn ex4_without_a_yield_each_task_runs_all_its_steps_first() {
    watchdog_default(|| {
        assert_eq!(two_workers(false), ["A0", "A1", "A2", "B0", "B1", "B2"]);
    });
}

#[test]
fn ex4_each_yield_now_costs_one_turn() {
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
        assert_eq!(event_loop.turn(), 6, "the first step and one per yield");
        assert_eq!(trace.turns_of("main"), [1, 2, 3, 4, 5, 6]);
    });
}

#[test]
fn ex4_an_empty_program_takes_one_turn() {
    watchdog_default(|| {
        // asyncio.run(main()) with an empty main takes 6 turns in CPython: 2 for main
        // (its step, then the stop callback), 2 for shutdown_asyncgens, 2 for
        // shutdown_default_executor. oneloop checks main after each turn (no stop
        // callback), has no async generators, and shuts its pool down in a close hook.
        let mut runner = Runner::new();
        runner.run(async {}).unwrap();
        assert_eq!(runner.event_loop().turn(), 1);
        runner.close();
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
