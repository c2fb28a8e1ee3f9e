//! Pins the orders of the side-by-side program on both loops (the example
//! `side_by_side` prints them).

use crate::scenario;

use oneloop_testkit::watchdog_default;

#[test]
fn the_asyncio_style_loop_runs_callbacks_and_steps_in_one_fifo_queue() {
    let order = watchdog_default(|| scenario::asyncio_style().expect("runs"));
    assert_eq!(order, ["cb", "a1", "b1", "cb2", "a2", "b2"]);
}

#[test]
fn the_node_style_loop_starts_coroutines_at_once_and_resumes_them_as_microtasks() {
    let order = watchdog_default(|| scenario::node_style().expect("runs"));
    assert_eq!(order, ["a1", "b1", "a2", "b2", "cb", "cb2"]);
}
