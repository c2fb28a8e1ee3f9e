//! Two CPU-bound jobs, inline on the loop's thread and then on two pool threads.
//!
//! In CPython the GIL lets only one thread run Python code at a time, so offloading
//! CPU-bound Python code gains nothing. Rust threads run in parallel on as many cores
//! as there are. Run: `cargo run -p oneloop-offload --example cpu_parallel [rounds]`

use std::hint::black_box;
use std::time::Instant;

use oneloop_offload::{run, to_thread};

/// Pure computation: a xorshift generator folded into a checksum.
fn crunch(rounds: u64) -> u64 {
    let mut x = black_box(0x9E37_79B9_7F4A_7C15_u64);
    let mut sum = 0u64;
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sum = sum.wrapping_add(x);
    }
    sum
}

fn main() {
    let rounds: u64 = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(100_000_000);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let start = Instant::now();
    let inline = run(async move { (crunch(rounds), crunch(rounds)) }).expect("main finishes");
    let inline_time = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let offloaded = run(async move {
        // Both submitted before either is awaited: two workers take them at once.
        let a = to_thread(move || crunch(rounds));
        let b = to_thread(move || crunch(rounds));
        (a.await.expect("no panic"), b.await.expect("no panic"))
    })
    .expect("main finishes");
    let offloaded_time = start.elapsed().as_secs_f64();

    assert_eq!(inline, offloaded, "the same work was done");
    println!("cores: {cores}; two jobs of {rounds} rounds each");
    println!("inline on the loop thread: {inline_time:.3} s");
    println!("offloaded to two threads:  {offloaded_time:.3} s");
    println!("speed-up: {:.2}x", inline_time / offloaded_time);
}
