//! The Node-style loop's `setInterval` under a slow callback.
//!
//! Failure kept fixed: an interval was re-armed from a clock read *after* its callback,
//! so a callback that kept the thread busy pushed every later run back by its own
//! length (a 100 ms interval with an 80 ms callback ran every 180 ms). Node reads the
//! time before the callback and re-arms from that reading. Moving the read alone was
//! not enough: the poll then computed its timeout from the loop time the callback left
//! stale, and waited the whole 100 ms again. Node's libuv looks first with a zero
//! timeout, reads the clock, and waits only what is left; so does oneloop.
//!
//! Everything here runs on the virtual clock, where `busy_wait` moves the clock
//! without moving the loop's cached time, exactly as a busy JavaScript loop does. The
//! scenario with the same program, checked against real Node, is
//! `tests/truth_node.rs::interval_slow_callback`.

use std::cell::RefCell;
use std::rc::Rc;

use oneloop_node::{
    NodeLoop, busy_wait, clear_interval, console_log, loop_time, set_interval, set_timeout,
};

/// A 100 ms interval whose callback is busy for 80 ms, run five times, beside a timer
/// due at 480 ms. Returns the loop time of each run and the printed order.
fn slow_interval() -> (Vec<u64>, Vec<String>) {
    let mut node = NodeLoop::with_virtual_clock().expect("a loop");
    let starts = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&starts);
    let report = node
        .run(move || {
            let id = Rc::new(RefCell::new(None));
            let handle = Rc::clone(&id);
            let timer = set_interval(
                move || {
                    seen.borrow_mut().push(loop_time());
                    console_log("tick");
                    busy_wait(80);
                    if seen.borrow().len() == 5
                        && let Some(timer) = *handle.borrow()
                    {
                        clear_interval(timer);
                    }
                },
                100,
            );
            *id.borrow_mut() = Some(timer);
            set_timeout(|| console_log("timeout"), 480);
        })
        .expect("the run ends");
    let starts = starts.borrow().clone();
    (starts, report.output)
}

#[test]
fn a_slow_interval_callback_does_not_push_the_next_run_back() {
    let (starts, _) = slow_interval();
    // Re-armed from the time read before each callback, and the poll waits only what
    // is left: every 100 ms, not every 180.
    assert_eq!(starts, [100, 200, 300, 400, 500]);
}

#[test]
fn a_slow_interval_keeps_its_place_before_a_later_timer() {
    let (_, output) = slow_interval();
    // The fourth run is due at 400 ms, 80 ms before the timer. Re-armed after the
    // callback, it would be due at 640 ms; re-armed right but with the poll waiting its
    // whole timeout from the stale loop time, at 560 ms. Both come after the timer.
    assert_eq!(
        output,
        ["tick", "tick", "tick", "tick", "timeout", "tick"],
        "the interval's fourth run comes before the 480 ms timer"
    );
}
