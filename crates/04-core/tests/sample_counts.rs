//! The counts the chapter's timing examples print beside their figures.
//!
//! `ping_pong`, `spawn_join` and `observer_cost` print a time per operation, which is a
//! sample, and a count of turns or handles, which is not: the same program gives the
//! same count on every machine. These tests run the same programs, smaller, and assert
//! the counts' formulas, so the sample outputs in chapter 4 cannot drift from the loop.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{EventLoop, Label, Observer, spawn, yield_now};
use oneloop_testkit::watchdog_default;

/// `ping_pong` with `rounds` rounds: two spawned tasks yield `rounds` times each, and
/// main `rounds + 1` times. Returns the loop's turns.
fn ping_pong(rounds: u64) -> u64 {
    let mut event_loop = EventLoop::new();
    for _ in 0..2 {
        drop(event_loop.spawn(async move {
            for _ in 0..rounds {
                yield_now().await;
            }
        }));
    }
    event_loop
        .run_until_complete(async move {
            for _ in 0..=rounds {
                yield_now().await;
            }
        })
        .expect("main finishes");
    event_loop.turn()
}

#[test]
fn ping_pong_yields_three_times_per_turn_and_ends_three_turns_after_the_rounds() {
    // The example's 500,000 rounds print "1500000 yields over 500003 turns".
    let turns = watchdog_default(|| [10, 1000].map(ping_pong));
    assert_eq!(turns, [13, 1003], "rounds + 3 turns, whatever the rounds");
}

/// `spawn_join` with `tasks` tasks: main spawns them all, then awaits each in turn.
fn spawn_join(tasks: u64) -> (u64, u64) {
    let mut event_loop = EventLoop::new();
    let sum = event_loop
        .run_until_complete(async move {
            let handles: Vec<_> = (0..tasks).map(|i| spawn(async move { i })).collect();
            let mut sum = 0;
            for handle in handles {
                sum += handle.await.expect("no task panics");
            }
            sum
        })
        .expect("main finishes");
    (sum, event_loop.turn())
}

#[test]
fn spawn_and_join_of_any_number_of_tasks_takes_four_turns() {
    // The example's 100,000 tasks print "4 turns".
    let runs = watchdog_default(|| [1, 100, 10_000].map(spawn_join));
    assert_eq!(runs, [(0, 4), (4950, 4), (49_995_000, 4)]);
}

/// Counts the handles an observer is told of.
#[derive(Default)]
struct Handles(Cell<u64>);

impl Observer for Handles {
    fn handle_ran(&self, _turn: u64, _label: &Label, _elapsed: Duration) {
        self.0.set(self.0.get() + 1);
    }
}

/// `observer_cost` with `steps` yields of main, with or without an observer. Returns
/// the turns and the handles the observer saw (0 without one).
fn observed_steps(steps: u64, observe: bool) -> (u64, u64) {
    let mut event_loop = EventLoop::new();
    let handles = Rc::new(Handles::default());
    if observe {
        event_loop.add_observer(Rc::clone(&handles) as Rc<dyn Observer>);
    }
    event_loop
        .run_until_complete(async move {
            for _ in 0..steps {
                yield_now().await;
            }
        })
        .expect("main finishes");
    (event_loop.turn(), handles.0.get())
}

#[test]
fn the_observer_is_told_of_one_handle_per_turn_of_a_yielding_main() {
    // The example's 1,000,000 steps print "1000002 handles seen".
    let runs = watchdog_default(|| {
        [(1000, false), (1000, true)].map(|(steps, observe)| observed_steps(steps, observe))
    });
    assert_eq!(
        runs,
        [(1002, 0), (1002, 1002)],
        "steps + 2 turns with or without an observer, one handle each"
    );
}
