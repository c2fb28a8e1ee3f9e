//! A ticker (three ticks, 0.1 s apart) and a 0.35 s blocking call on the loop's
//! thread, real clock, in both cases: the ticker has started (run its first step)
//! before the block, or was only spawned.
//!
//! Run with `cargo run --release -p oneloop-timers --example ticker`.

mod common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{spawn, yield_now};
use oneloop_timers::{block_for, sleep, time};

async fn ticker(ticks: Rc<RefCell<Vec<Duration>>>) {
    for _ in 0..3 {
        sleep(Duration::from_millis(100)).await;
        ticks.borrow_mut().push(time());
    }
}

fn case(started: bool) {
    let (mut event_loop, measure) = common::measured_loop();
    let ticks = common::ticks();
    let seen = Rc::clone(&ticks);
    let total = event_loop
        .run_until_complete(async move {
            let ticking = spawn(ticker(seen));
            if started {
                yield_now().await;
            }
            block_for(Duration::from_millis(350));
            ticking.await.expect("the ticker does not panic");
            time()
        })
        .expect("main finishes");
    let ticks = ticks.borrow();
    let name = if started { "started" } else { "only spawned" };
    println!("ticker {name} before a 0.35 s block (real clock)");
    println!("  ticks:           {}", common::list(&ticks));
    common::report(&ticks, total, &measure);
}

fn main() {
    case(true);
    case(false);
}
