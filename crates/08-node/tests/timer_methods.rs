//! `refresh_timer` on timers it cannot re-arm, and a timer list out of deadline order.

use oneloop_node::{
    NodeLoop, TimerId, busy_wait, clear_timeout, console_log, loop_time, refresh_timer,
    set_interval, set_timeout,
};
use oneloop_testkit::watchdog_default;

use std::cell::Cell;
use std::rc::Rc;

/// A `set_timeout` timer runs once, however often it is refreshed after its callback
/// began: from inside the callback, and from a later timer. (Node keeps the callback
/// of a `Timeout` and runs it again after a `refresh()`; here the callback is an
/// `FnOnce`.)
#[test]
fn refresh_timer_leaves_a_timer_whose_callback_ran_alone() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                let id: Rc<Cell<Option<TimerId>>> = Rc::default();
                let me = Rc::clone(&id);
                let timer = set_timeout(
                    move || {
                        console_log("ran");
                        if let Some(timer) = me.get() {
                            refresh_timer(timer);
                        }
                    },
                    10,
                );
                id.set(Some(timer));
                set_timeout(
                    move || {
                        console_log("refresh from a later timer");
                        refresh_timer(timer);
                    },
                    20,
                );
            })
            .expect("the run ends");
        assert_eq!(report.output, ["ran", "refresh from a later timer"]);
    });
}

/// A list is in the order its timers were armed, which is not always deadline order.
/// An interval is re-armed from the time read before its callback, at the end of its
/// list, so it lands behind a timer of its own duration that the callback set later:
/// the interval is due at 20 ms, the timer at 25 ms, and the list runs the timer first
/// and the interval right after it, at 25 ms. Node does the same (its timers phase
/// only ever looks at the first timer of a list).
#[test]
fn an_interval_rearmed_behind_a_later_timer_of_its_list_waits_for_it() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                let runs = Rc::new(Cell::new(0));
                let id: Rc<Cell<Option<TimerId>>> = Rc::default();
                let me = Rc::clone(&id);
                let interval = set_interval(
                    move || {
                        runs.set(runs.get() + 1);
                        console_log(format!("interval {} at {}", runs.get(), loop_time()));
                        if runs.get() == 1 {
                            busy_wait(5);
                            set_timeout(|| console_log(format!("timeout at {}", loop_time())), 10);
                        } else if let Some(interval) = me.get() {
                            clear_timeout(interval);
                        }
                    },
                    10,
                );
                id.set(Some(interval));
                set_timeout(|| console_log(format!("marker at {}", loop_time())), 22);
            })
            .expect("the run ends");
        assert_eq!(
            report.output,
            [
                "interval 1 at 10",
                "marker at 22",
                "timeout at 25",
                "interval 2 at 25"
            ]
        );
    });
}
