//! N tasks each busy for 100 ms, real clock: blocking the loop's thread, or sleeping.
//! Blocking adds up inside one long turn; sleeping runs the timers down together.
//!
//! Run with `cargo run --release -p oneloop-timers --example fifty`.

mod common;

use std::time::Duration;

use oneloop_core::gather;
use oneloop_timers::{block_for, sleep, time};

fn case(tasks: usize, blocking: bool) {
    let (mut event_loop, measure) = common::measured_loop();
    let total = event_loop
        .run_until_complete(async move {
            let start = time();
            let work = (0..tasks).map(|_| async move {
                if blocking {
                    block_for(Duration::from_millis(100));
                } else {
                    sleep(Duration::from_millis(100)).await;
                }
            });
            gather(work).await.expect("no task panics");
            time() - start
        })
        .expect("main finishes");
    let name = if blocking { "blocking" } else { "sleeping" };
    println!(
        "{tasks:>3} tasks {name}: total {:>10}, turns {}, longest turn {:>10}",
        common::ms(total),
        measure.turns(),
        common::ms(measure.longest())
    );
}

fn main() {
    println!("N tasks, each 100 ms (real clock)");
    for blocking in [true, false] {
        for tasks in [1, 10, 50] {
            case(tasks, blocking);
        }
    }
}
