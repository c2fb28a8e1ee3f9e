//! From a worker finishing to the awaiting task resuming: the cost of the hand-back
//! (`call_soon_threadsafe`, the eventfd, the loop's turn, the task's step).
//!
//! Run: `cargo run -p oneloop-offload --example wake_latency [runs]`

use std::time::{Duration, Instant};

use oneloop_offload::{run, to_thread};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(2_000);
    let mut latencies: Vec<Duration> = run(async move {
        let mut latencies = Vec::with_capacity(runs);
        for _ in 0..runs {
            // The job's last act is to read the clock; the task reads it on resuming.
            let finished = to_thread(Instant::now).await.expect("no panic");
            latencies.push(finished.elapsed());
        }
        latencies
    })
    .expect("main finishes");
    latencies.sort();
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let median = latencies[latencies.len() / 2];
    let p99 = latencies[(latencies.len() * 99 / 100).min(latencies.len() - 1)];
    println!("{runs} hand-backs from a worker to the awaiting task");
    println!("median: {:.1} µs", micros(median));
    println!("p99:    {:.1} µs", micros(p99));
    println!("max:    {:.1} µs", micros(latencies[latencies.len() - 1]));
}
