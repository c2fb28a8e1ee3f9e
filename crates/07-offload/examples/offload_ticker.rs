//! The ticker beside a 0.35 s blocking call: on the loop's thread, then offloaded.
//!
//! The ticker is started (spawned, and main yields once so its first timer is set)
//! before main blocks. Run: `cargo run -p oneloop-offload --example offload_ticker`

use std::cell::RefCell;
use std::rc::Rc;
use std::thread;
use std::time::{Duration, Instant};

use oneloop_core::{spawn, yield_now};
use oneloop_offload::{run, to_thread};
use oneloop_timers::sleep;

const BLOCK: Duration = Duration::from_millis(350);

/// Runs the ticker beside the blocking call and returns the tick times and the end.
fn timeline(offload: bool) -> (Vec<f64>, f64) {
    let start = Instant::now();
    let ticks = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&ticks);
    run(async move {
        let ticker = spawn(async move {
            for _ in 0..3 {
                sleep(Duration::from_millis(100)).await;
                seen.borrow_mut().push(start.elapsed().as_secs_f64());
            }
        });
        yield_now().await;
        if offload {
            to_thread(|| thread::sleep(BLOCK))
                .await
                .expect("sleep does not panic");
        } else {
            thread::sleep(BLOCK);
        }
        ticker.await.expect("the ticker does not panic");
    })
    .expect("main finishes");
    let ticks = ticks.borrow().clone();
    (ticks, start.elapsed().as_secs_f64())
}

fn main() {
    for (name, offload) in [("blocking on the loop thread", false), ("to_thread", true)] {
        let (ticks, end) = timeline(offload);
        let shown: Vec<String> = ticks.iter().map(|t| format!("{t:.3}")).collect();
        println!(
            "{name:<28} ticks at {} s; program ends at {end:.3} s",
            shown.join(", ")
        );
    }
}
