//! The slow-callback report as the default exception handler writes it, and the
//! threshold's boundary.

use std::cell::RefCell;
use std::process::Command;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::ExceptionReport;
use oneloop_testkit::watchdog_default;
use oneloop_timers::{LoopTimers, block_for, virtual_time_loop};

/// Set in the child process that the test below starts.
const CHILD: &str = "ONELOOP_TIMERS_SLOW_LINE_CHILD";

#[test]
fn child_blocks_one_callback_for_a_quarter_second() {
    // Does nothing unless started by the test below.
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    watchdog_default(|| {
        // Virtual time, debug on, the default handler (stderr).
        let mut event_loop = virtual_time_loop();
        event_loop.timers().set_debug(true);
        event_loop.call_soon_named("block_cb", || block_for(Duration::from_millis(250)));
        event_loop.run_until_complete(async {}).unwrap();
    });
}

#[test]
fn the_default_handler_writes_a_slow_callback_in_the_one_form_of_every_report() {
    watchdog_default(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        let output = Command::new(exe)
            .args([
                "child_blocks_one_callback_for_a_quarter_second",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .output()
            .expect("the test binary runs again");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "child failed:\n{stderr}");
        let line = "oneloop: Executing <Handle block_cb> took 0.250 seconds (block_cb): \
                    slow callback (debug mode)";
        assert!(
            stderr.lines().any(|l| l == line),
            "missing `{line}` in stderr:\n{stderr}"
        );
    });
}

#[test]
fn a_handle_that_ran_exactly_the_threshold_is_slow() {
    watchdog_default(|| {
        // Virtual time, debug on, threshold 100 ms: blocks of 100 ms and 99 ms.
        let mut event_loop = virtual_time_loop();
        let reports: Rc<RefCell<Vec<ExceptionReport>>> = Rc::default();
        let sink = Rc::clone(&reports);
        event_loop.set_exception_handler(move |report| sink.borrow_mut().push(report.clone()));
        event_loop.timers().set_debug(true);
        event_loop.call_soon_named("at", || block_for(Duration::from_millis(100)));
        event_loop.call_soon_named("under", || block_for(Duration::from_millis(99)));
        event_loop.run_until_complete(async {}).unwrap();
        let labels: Vec<String> = reports
            .borrow()
            .iter()
            .map(|report| report.label.to_string())
            .collect();
        assert_eq!(labels, ["at"], "slow means at least the threshold");
    });
}
