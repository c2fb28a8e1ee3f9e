//! The `await_cost` example's method, asserted: each round builds a fresh future and
//! polls it through a `dyn Future` until it is ready. Three nested ready awaits take one
//! poll, `SumTwo` over two ready futures one, and the same chain behind one real
//! suspension two. The example prints these counts beside its timings.

#[allow(dead_code)] // `main` and the baseline belong to the example, not to this test.
#[path = "../examples/await_cost.rs"]
mod example;

use std::future::ready;

use oneloop_coroutine::SumTwo;

#[test]
fn a_ready_chain_takes_one_poll_per_round_and_a_suspension_one_more() {
    let (_, ready_polls) = example::measure(100, example::level1);
    let (_, hand_polls) = example::measure(100, |x| SumTwo::new(ready(x), ready(3)));
    let (_, suspend_polls) = example::measure(100, example::suspending);
    assert_eq!((ready_polls, hand_polls, suspend_polls), (1.0, 1.0, 2.0));
}
