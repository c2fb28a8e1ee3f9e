//! `refresh_timer` on timers it cannot re-arm.

use oneloop_node::{NodeLoop, TimerId, console_log, refresh_timer, set_timeout};
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
