//! Gather of sleeps 0.3, 0.1 and 0.2 s on the real clock: the whole takes about the
//! longest one, the children finish shortest first, results come in argument order.
//!
//! Run with `cargo run --release -p oneloop-timers --example gather_sleeps`.

mod common;

use std::rc::Rc;
use std::time::Duration;

use oneloop_core::gather;
use oneloop_timers::{sleep, time};

fn main() {
    let (mut event_loop, measure) = common::measured_loop();
    let finished = common::ticks();
    let seen = Rc::clone(&finished);
    let (results, total) = event_loop
        .run_until_complete(async move {
            let naps = [300, 100, 200].map(|length| {
                let seen = Rc::clone(&seen);
                async move {
                    sleep(Duration::from_millis(length)).await;
                    seen.borrow_mut().push(time());
                    length
                }
            });
            let results = gather(naps).await.expect("no child panics");
            (results, time())
        })
        .expect("main finishes");
    println!("gather of sleeps 0.3, 0.1, 0.2 s (real clock)");
    println!("  results (argument order): {results:?} ms");
    println!(
        "  children finished at:     {}",
        common::list(&finished.borrow())
    );
    println!("  total:                    {}", common::ms(total));
    println!("  turns:                    {}", measure.turns());
    println!(
        "  longest turn:             {}",
        common::ms(measure.longest())
    );
}
