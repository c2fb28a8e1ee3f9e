//! Measures one `yield_now` round trip: two tasks take turns 500,000 times each.
//!
//! `cargo run --release -p oneloop-core --example ping_pong`

use std::time::Instant;

use oneloop_core::{EventLoop, yield_now};

const ROUNDS: u64 = 500_000;

fn main() {
    let mut event_loop = EventLoop::new();
    for _ in 0..2 {
        drop(event_loop.spawn(async {
            for _ in 0..ROUNDS {
                yield_now().await;
            }
        }));
    }
    let started = Instant::now();
    event_loop
        .run_until_complete(async {
            // main waits by yielding too, so it costs one extra step per turn.
            for _ in 0..=ROUNDS {
                yield_now().await;
            }
        })
        .expect("main finishes");
    let elapsed = started.elapsed();
    let yields = 3 * ROUNDS;
    println!(
        "yield_now: {yields} yields over {} turns in {elapsed:?}, {:.1} ns per yield",
        event_loop.turn(),
        elapsed.as_nanos() as f64 / yields as f64
    );
}
