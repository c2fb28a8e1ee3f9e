//! The pulse: a task that records a tick and sleeps 10 ms, in a loop, beside a worker
//! doing ten 100 ms chunks with a yield after each. Real clock, two workers: one that
//! blocks inside each chunk, one that sleeps instead.
//!
//! Run with `cargo run --release -p oneloop-timers --example pulse`.

mod common;

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{spawn, yield_now};
use oneloop_timers::{block_for, sleep, time};

fn case(blocking: bool) {
    let (mut event_loop, measure) = common::measured_loop();
    let ticks = common::ticks();
    let seen = Rc::clone(&ticks);
    let done = Rc::new(Cell::new(false));
    let total = event_loop
        .run_until_complete(async move {
            let pulse_done = Rc::clone(&done);
            let pulse = spawn(async move {
                while !pulse_done.get() {
                    seen.borrow_mut().push(time());
                    sleep(Duration::from_millis(10)).await;
                }
            });
            let worker = spawn(async move {
                for _ in 0..10 {
                    if blocking {
                        block_for(Duration::from_millis(100));
                    } else {
                        sleep(Duration::from_millis(100)).await;
                    }
                    yield_now().await;
                }
                done.set(true);
            });
            worker.await.expect("the worker does not panic");
            pulse.await.expect("the pulse does not panic");
            time()
        })
        .expect("main finishes");
    let ticks = ticks.borrow();
    let name = if blocking { "blocks" } else { "sleeps" };
    println!("pulse every 10 ms, worker {name} 10 x 100 ms (real clock)");
    println!("  ticks:           {}", ticks.len());
    if ticks.len() <= 12 {
        println!("  at:              {}", common::list(&ticks));
    }
    common::report(&ticks, total, &measure);
}

fn main() {
    case(true);
    case(false);
}
