//! Measures the cost of spawning a task and joining it, over 100,000 tasks.
//!
//! `cargo run --release -p oneloop-core --example spawn_join`

use std::time::Instant;

use oneloop_core::{EventLoop, spawn};

const TASKS: u64 = 100_000;

fn main() {
    let mut event_loop = EventLoop::new();
    let started = Instant::now();
    let sum = event_loop
        .run_until_complete(async {
            let handles: Vec<_> = (0..TASKS).map(|i| spawn(async move { i })).collect();
            let mut sum = 0;
            for handle in handles {
                sum += handle.await.expect("no task panics");
            }
            sum
        })
        .expect("main finishes");
    let elapsed = started.elapsed();
    assert_eq!(sum, TASKS * (TASKS - 1) / 2);
    println!(
        "spawn + join: {TASKS} tasks in {elapsed:?}, {:.0} ns per task, {} turns",
        elapsed.as_nanos() as f64 / TASKS as f64,
        event_loop.turn()
    );
}
