//! What an `await` costs: a ready one, against a real suspension.
//!
//! A ready `await` is a plain call into the awaited future's `poll`; a suspension
//! returns `Pending` all the way out and costs a second `poll` from the top. No event
//! loop takes part here — the driver below polls again at once — so the suspension's
//! figure is the least any runtime can charge for it; a real loop adds its queue.
//!
//! Run with `cargo run --release -p oneloop-coroutine --example await_cost`. The test
//! `tests/await_cost.rs` runs the same measurements, a few rounds each, and asserts the
//! poll counts printed here.

use std::future::{Future, ready};
use std::hint::black_box;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use oneloop_coroutine::{SumTwo, yield_now};

const ROUNDS: u32 = 2_000_000;

/// The baseline: the same arithmetic with no future at all, called through a pointer
/// the optimiser cannot see through.
fn plain(x: u64) -> u64 {
    x + 3
}

async fn level3(x: u64) -> u64 {
    ready(x).await + 1
}

async fn level2(x: u64) -> u64 {
    level3(x).await + 1
}

/// Three nested ready awaits: level1 -> level2 -> level3 -> ready.
pub(crate) async fn level1(x: u64) -> u64 {
    level2(x).await + 1
}

/// The same chain, with one real suspension at the bottom.
pub(crate) async fn suspending(x: u64) -> u64 {
    yield_now().await;
    level1(x).await
}

/// Builds a fresh future per round with `make`, polls it until it is ready, and
/// returns (nanoseconds per round, polls per round). Each poll goes through a
/// `dyn Future` the optimiser cannot see through, as an executor's poll does; what the
/// future does inside (its awaits) is compiled as usual.
pub(crate) fn measure<F: Future<Output = u64>>(rounds: u32, make: impl Fn(u64) -> F) -> (f64, f64) {
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls: u64 = 0;
    let start = Instant::now();
    for i in 0..rounds {
        let mut future = pin!(make(u64::from(i)));
        loop {
            polls += 1;
            let opaque: Pin<&mut dyn Future<Output = u64>> = black_box(future.as_mut());
            if let Poll::Ready(value) = opaque.poll(&mut cx) {
                black_box(value);
                break;
            }
        }
    }
    let elapsed = start.elapsed();
    let rounds = f64::from(rounds);
    (elapsed.as_nanos() as f64 / rounds, polls as f64 / rounds)
}

fn main() {
    let call: fn(u64) -> u64 = black_box(plain);
    let start = Instant::now();
    for i in 0..u64::from(ROUNDS) {
        black_box(call(i));
    }
    let plain_ns = start.elapsed().as_nanos() as f64 / f64::from(ROUNDS);

    let (ready_ns, ready_polls) = measure(ROUNDS, level1);
    let (hand_ns, hand_polls) = measure(ROUNDS, |x| SumTwo::new(ready(x), ready(3)));
    let (suspend_ns, suspend_polls) = measure(ROUNDS, suspending);

    println!("{ROUNDS} rounds each; ns per round (a fresh future, polled until ready)");
    println!("  plain fn call, no future               {plain_ns:>7.2} ns");
    println!(
        "  async fn, 3 nested ready awaits        {ready_ns:>7.2} ns  ({ready_polls:.0} poll)"
    );
    println!("  SumTwo by hand, 2 ready awaits         {hand_ns:>7.2} ns  ({hand_polls:.0} poll)");
    println!(
        "  same chain + 1 real suspension         {suspend_ns:>7.2} ns  ({suspend_polls:.0} polls)"
    );
    println!(
        "  a suspension costs about               {:>7.2} ns more than the ready chain",
        suspend_ns - ready_ns
    );
}
