//! One value, many waiting threads: each thread runs `block_on` on its own waiter of one
//! `OneShot`; the main thread sets the value once and measures how long it takes until
//! every waiter has returned, and how many polls each one needed.
//!
//! Run with `cargo run -p oneloop-future --example fan_out`.

use std::thread;
use std::time::Instant;

use oneloop_future::{OneShot, block_on};
use oneloop_testkit::PollCounter;

const WAITERS: usize = 4;

fn main() {
    let fut: OneShot<u64, String> = OneShot::new();
    let threads: Vec<_> = (0..WAITERS)
        .map(|_| {
            let wait = PollCounter::new(fut.wait());
            let polls = wait.count_handle();
            thread::spawn(move || {
                let value = block_on(wait);
                (value, polls.get(), Instant::now())
            })
        })
        .collect();

    // Wait until every waiter has polled once and left its waker (an example may spin;
    // a test would use a barrier).
    while fut.registered_wakers() < WAITERS {
        thread::yield_now();
    }
    println!(
        "waiters with a waker registered: {}",
        fut.registered_wakers()
    );

    let set_at = Instant::now();
    fut.set_result(42).expect("the value is set once");
    for (index, handle) in threads.into_iter().enumerate() {
        let (value, polls, returned_at) = handle.join().expect("a waiter thread panicked");
        println!(
            "waiter {index}: got {value:?} after {polls} polls, {:?} after set_result",
            returned_at.duration_since(set_at)
        );
    }
    println!("waiters still registered: {}", fut.registered_wakers());
}
