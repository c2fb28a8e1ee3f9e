//! Eager tasks through the public API, on a virtual clock: which handles run in which
//! turn, counted by an observer.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{
    Error, current, set_eager_start, sleep, spawn, spawn_eager_named, spawn_named, task_future,
    yield_now,
};
use oneloop_core::{Label, Observer};
use oneloop_testkit::watchdog_default;

/// Every handle the loop ran, as `turn label`.
#[derive(Default)]
struct Handles(RefCell<Vec<String>>);

impl Observer for Handles {
    fn handle_ran(&self, turn: u64, label: &Label, _elapsed: Duration) {
        self.0.borrow_mut().push(format!("{turn} {label}"));
    }
}

impl Handles {
    /// The turns in which a handle labelled `label` ran.
    fn turns_of(&self, label: &str) -> Vec<u64> {
        self.0
            .borrow()
            .iter()
            .filter_map(|line| {
                let (turn, name) = line.split_once(' ')?;
                (name == label).then(|| turn.parse().expect("a turn number"))
            })
            .collect()
    }
}

fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}

fn queued_labels() -> Vec<String> {
    oneloop_core::hooks::with_current(|core| core.ready().labels()).expect("a loop runs")
}

/// Runs `main` as a task of this layer on a virtual-time loop with a handle observer.
fn run<T: 'static>(
    main: impl Future<Output = Result<T, Error>> + 'static,
) -> (Result<T, Error>, Rc<Handles>) {
    let handles = Rc::new(Handles::default());
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .core()
        .add_observer(Rc::clone(&handles) as Rc<dyn Observer>);
    // Main is itself a task of this layer, run as the loop's main: its first step is
    // turn 1.
    let (main, task) = task_future("main", main);
    event_loop.run_until_complete(main).expect("the loop runs");
    (task.try_result().expect("main finished"), handles)
}

#[test]
fn an_eager_task_that_never_suspends_is_done_when_spawn_returns_and_spends_no_turn() {
    watchdog_default(|| {
        let (outcome, handles) = run(async {
            let task = spawn_eager_named("quick", async { Ok(7) });
            let done_at_once = task.is_done();
            let queued = queued_labels();
            let value = task.join().await?;
            Ok((done_at_once, queued, value, turn()))
        });
        let (done_at_once, queued, value, main_turn) = outcome.expect("main ends well");
        assert!(
            done_at_once,
            "the eager step finished the task inside spawn"
        );
        assert!(
            !queued.iter().any(|label| label == "quick"),
            "nothing queued for it: {queued:?}"
        );
        assert_eq!(value, 7);
        assert_eq!(main_turn, 1, "joining a done task costs main no turn");
        assert_eq!(
            handles.turns_of("quick"),
            Vec::<u64>::new(),
            "the loop never ran it"
        );
    });
}

#[test]
fn an_ordinary_task_that_never_suspends_costs_a_step_and_two_turns_of_main() {
    watchdog_default(|| {
        let (outcome, handles) = run(async {
            let task = spawn_named("quick", async { Ok(7) });
            let done_at_once = task.is_done();
            let value = task.join().await?;
            Ok((done_at_once, value, turn()))
        });
        let (done_at_once, value, main_turn) = outcome.expect("main ends well");
        assert!(!done_at_once);
        assert_eq!(value, 7);
        assert_eq!(
            handles.turns_of("quick"),
            vec![2],
            "its one step runs in turn 2"
        );
        assert_eq!(main_turn, 3, "main resumes a turn after the task ends");
    });
}

#[test]
fn an_eager_task_that_suspends_is_queued_only_when_what_it_awaits_wakes_it() {
    watchdog_default(|| {
        let log = Rc::new(RefCell::new(Vec::new()));
        let l = Rc::clone(&log);
        let (outcome, handles) = run(async move {
            let inner = Rc::clone(&l);
            let task = spawn_eager_named("sleepy", async move {
                inner
                    .borrow_mut()
                    .push(format!("first step in turn {}", turn()));
                sleep(Duration::from_secs(1)).await?;
                inner
                    .borrow_mut()
                    .push(format!("second step in turn {}", turn()));
                Ok(())
            });
            l.borrow_mut().push("spawn returned".to_owned());
            let queued = queued_labels();
            task.join().await?;
            Ok(queued)
        });
        let queued = outcome.expect("main ends well");
        assert!(
            !queued.iter().any(|label| label == "sleepy"),
            "no step queued after the eager one: {queued:?}"
        );
        assert_eq!(
            *log.borrow(),
            [
                "first step in turn 1",
                "spawn returned",
                "second step in turn 3"
            ]
        );
        // Turn 2 moves the timer; the loop runs exactly one step of the task, its second.
        assert_eq!(handles.turns_of("sleepy"), vec![3]);
    });
}

#[test]
fn a_wake_during_the_eager_step_is_passed_on_to_the_loops_task() {
    watchdog_default(|| {
        let (outcome, handles) = run(async {
            let task = spawn_eager_named("yielder", async {
                // A bare yield wakes the task inside its own first step, before the
                // loop has a task to wake.
                yield_now().await?;
                Ok(turn())
            });
            task.join().await
        });
        assert_eq!(outcome, Ok(2), "the second step runs in the next turn");
        assert_eq!(handles.turns_of("yielder"), vec![2]);
    });
}

#[test]
fn the_eager_step_runs_as_the_new_task_and_the_spawner_is_current_again_after() {
    watchdog_default(|| {
        let (outcome, _) = run(async {
            let before = current().expect("main is a task").name().to_owned();
            let outer = spawn_eager_named("outer", async {
                let me = current().expect("outer is current").name().to_owned();
                // An eager spawn inside an eager step: three levels deep.
                let inner = spawn_eager_named("inner", async {
                    Ok(current().expect("inner is current").name().to_owned())
                });
                let after_inner = current().expect("outer again").name().to_owned();
                let inner_saw = inner.try_result().expect("inner finished eagerly")?;
                Ok(format!("{me}/{inner_saw}/{after_inner}"))
            });
            let after = current().expect("main again").name().to_owned();
            let outer_saw = outer.try_result().expect("outer finished eagerly")?;
            Ok(format!("{before}:{outer_saw}:{after}"))
        });
        assert_eq!(outcome, Ok("main:outer/inner/outer:main".to_owned()));
    });
}

#[test]
fn a_cancel_of_an_eager_task_that_suspended_is_delivered_at_its_await() {
    watchdog_default(|| {
        let (outcome, _) = run(async {
            let task = spawn_eager_named("sleeper", async {
                sleep(Duration::from_secs(10)).await?;
                Ok("slept")
            });
            task.cancel(Some("stop"));
            Ok((task.join().await, turn()))
        });
        let (joined, main_turn) = outcome.expect("main ends well");
        assert_eq!(joined, Err(Error::Cancelled(Some("stop".to_owned()))));
        assert_eq!(
            main_turn, 3,
            "the task sees it in turn 2, main a turn later"
        );
    });
}

#[test]
fn a_panic_in_the_eager_step_ends_the_task_and_the_spawner_goes_on() {
    watchdog_default(|| {
        let (outcome, _) = run(async {
            let task: oneloop_cancel::Task<()> = spawn_eager_named("bad", async {
                panic!("eager boom");
            });
            Ok(task.join().await)
        });
        assert_eq!(
            outcome,
            Ok(Err(Error::Panicked("eager boom".to_owned()))),
            "the spawner reads the panic from the handle"
        );
    });
}

#[test]
fn set_eager_start_makes_every_spawn_on_the_loop_eager_until_turned_off() {
    watchdog_default(|| {
        let (outcome, _) = run(async {
            let core = oneloop_core::hooks::with_current(Rc::clone).expect("a loop runs");
            set_eager_start(&core, true);
            let eager = spawn(async { Ok(1) });
            set_eager_start(&core, false);
            let ordinary = spawn(async { Ok(2) });
            Ok((eager.is_done(), ordinary.is_done()))
        });
        assert_eq!(outcome, Ok((true, false)));
    });
}

/// The example `eager_cost`'s program, smaller: `tasks` tasks spawned and joined.
/// Returns (turns, handles run).
fn cost_program(tasks: u64, eager: bool, suspends: bool) -> (u64, u64) {
    let handles = Rc::new(Handles::default());
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .core()
        .add_observer(Rc::clone(&handles) as Rc<dyn Observer>);
    let (main, result) = task_future("main", async move {
        let spawned: Vec<_> = (0..tasks)
            .map(|i| {
                let body = async move {
                    if suspends {
                        yield_now().await?;
                    }
                    Ok(i)
                };
                if eager {
                    spawn_eager_named("t", body)
                } else {
                    spawn_named("t", body)
                }
            })
            .collect();
        let mut sum = 0;
        for task in &spawned {
            sum += task.join().await?;
        }
        Ok(sum)
    });
    event_loop.run_until_complete(main).expect("the loop runs");
    assert_eq!(result.try_result(), Some(Ok(tasks * (tasks - 1) / 2)));
    let ran = handles.0.borrow().len() as u64;
    (event_loop.core().turn(), ran)
}

#[test]
fn the_eager_cost_programs_take_the_turns_and_handles_the_example_prints() {
    watchdog_default(|| {
        for tasks in [10, 1000] {
            // Ordinary, never suspends: one step each, main twice, the stop callback.
            assert_eq!(cost_program(tasks, false, false), (4, tasks + 3));
            // Eager, never suspends: no handle for any task; main ends in turn 1.
            assert_eq!(cost_program(tasks, true, false), (2, 2));
            // Ordinary, suspends once: two steps each.
            assert_eq!(cost_program(tasks, false, true), (5, 2 * tasks + 3));
            // Eager, suspends once: the first step ran inside spawn, the second is
            // queued by the yield's wake, as an ordinary task's is.
            assert_eq!(cost_program(tasks, true, true), (4, tasks + 3));
        }
    });
}
