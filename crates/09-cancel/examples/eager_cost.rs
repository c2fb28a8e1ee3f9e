//! What eager start saves, in nanoseconds per task: spawn 100,000 tasks and join them,
//! ordinary and eager, once with tasks that finish without suspending and once with
//! tasks that suspend once (a bare yield) before they finish. Each case runs seven
//! times, interleaved with the others; the median is printed.
//!
//! `cargo run --release -p oneloop-cancel --example eager_cost`
//!
//! The times are samples. The turns and the handles run are not: the test
//! `tests/eager.rs::the_eager_cost_programs_take_the_turns_and_handles_the_example_prints`
//! runs the same program, smaller, and asserts them.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use oneloop_cancel::{Error, spawn, spawn_eager, task_future, yield_now};
use oneloop_core::{Label, Observer};

const TASKS: u64 = 100_000;

/// Counts the handles the loop runs.
#[derive(Default)]
struct Handles(Cell<u64>);

impl Observer for Handles {
    fn handle_ran(&self, _turn: u64, _label: &Label, _elapsed: Duration) {
        self.0.set(self.0.get() + 1);
    }
}

async fn body(i: u64, suspends: bool) -> Result<u64, Error> {
    if suspends {
        yield_now().await?;
    }
    Ok(i)
}

/// Spawns `tasks` tasks and joins them; returns (time, turns, handles run).
fn program(tasks: u64, eager: bool, suspends: bool) -> (Duration, u64, u64) {
    let mut event_loop = oneloop_timers::real_time_loop();
    let handles = Rc::new(Handles::default());
    event_loop
        .core()
        .add_observer(Rc::clone(&handles) as Rc<dyn Observer>);
    let (main, result) = task_future("main", async move {
        let spawned: Vec<_> = (0..tasks)
            .map(|i| {
                if eager {
                    spawn_eager(body(i, suspends))
                } else {
                    spawn(body(i, suspends))
                }
            })
            .collect();
        let mut sum = 0;
        for task in &spawned {
            sum += task.join().await?;
        }
        Ok(sum)
    });
    let started = Instant::now();
    event_loop.run_until_complete(main).expect("the loop runs");
    let elapsed = started.elapsed();
    let sum = result
        .try_result()
        .expect("main finished")
        .expect("no task fails");
    assert_eq!(sum, tasks * (tasks - 1) / 2);
    (elapsed, event_loop.core().turn(), handles.0.get())
}

/// Rounds of each case, interleaved; the median is printed.
const ROUNDS: usize = 7;

fn main() {
    let cases = [(false, false), (true, false), (false, true), (true, true)];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    let mut counts = [(0, 0); 4];
    for _ in 0..ROUNDS {
        for (i, &(eager, suspends)) in cases.iter().enumerate() {
            let (elapsed, turns, handles) = program(TASKS, eager, suspends);
            times[i].push(elapsed);
            counts[i] = (turns, handles);
        }
    }
    for (i, &(eager, suspends)) in cases.iter().enumerate() {
        times[i].sort();
        let median = times[i][ROUNDS / 2];
        let (turns, handles) = counts[i];
        println!(
            "{:<8} {:<16} {:>4.0} ns per task, {turns} turns, {handles} handles",
            if eager { "eager" } else { "ordinary" },
            if suspends {
                "suspends once:"
            } else {
                "never suspends:"
            },
            median.as_nanos() as f64 / TASKS as f64,
        );
    }
}
