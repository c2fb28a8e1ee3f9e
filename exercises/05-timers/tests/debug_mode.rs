//! Debug mode: slow handles reported as asyncio reports them.
//!
//! These tests need the whole loop (every park sweeps and computes a timeout), so they
//! are named for exercise 3. Durations come from the loop's clock: in virtual time a
//! `block_for` inside a handle is what makes it slow.

mod common;

use std::process::Command;

use common::{ms, record_reports};
use ex05_timers::{
    DEBUG_ENV, DEFAULT_SLOW_CALLBACK_DURATION, LoopTimers, SLOW_CALLBACK, block_for, sleep,
    virtual_time_loop,
};
use oneloop_testkit::watchdog_default;

/// The messages of the reports recorded so far.
fn messages(reports: &std::cell::RefCell<Vec<oneloop_core::ExceptionReport>>) -> Vec<String> {
    reports
        .borrow()
        .iter()
        .map(|report| report.message.clone())
        .collect()
}

#[test]
fn ex3_debug_mode_is_off_by_default_and_nothing_is_reported() {
    watchdog_default(|| {
        // Virtual time, debug mode untouched: main blocks 0.25 s.
        if std::env::var_os(DEBUG_ENV).is_some() {
            return; // Run with debug mode forced on from outside: nothing to check.
        }
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        let timers = event_loop.timers();
        assert!(!timers.debug());
        assert_eq!(
            timers.slow_callback_duration(),
            DEFAULT_SLOW_CALLBACK_DURATION
        );
        assert_eq!(DEFAULT_SLOW_CALLBACK_DURATION, ms(100));
        event_loop
            .run_until_complete(async { block_for(ms(250)) })
            .unwrap();
        assert!(reports.borrow().is_empty());
    });
}

#[test]
fn ex3_a_slow_task_step_is_reported_with_its_duration_on_the_loop_clock() {
    watchdog_default(|| {
        // Virtual time, debug on through the API: main blocks 0.25 s in one step.
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        event_loop.timers().set_debug(true);
        event_loop
            .run_until_complete(async {
                block_for(ms(250));
                sleep(ms(10)).await;
                block_for(ms(50));
            })
            .unwrap();
        assert_eq!(
            messages(&reports),
            ["Executing <Task main> took 0.250 seconds"]
        );
        let report = reports.borrow()[0].clone();
        assert_eq!(report.label.to_string(), "main");
        assert_eq!(report.panic, SLOW_CALLBACK);
    });
}

#[test]
fn ex3_slow_timer_handles_and_plain_handles_have_their_own_forms() {
    watchdog_default(|| {
        // Virtual time, debug on: a call_later callback and a call_soon callback each
        // block 0.12 s; a quick one is not reported.
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        let timers = event_loop.timers();
        timers.set_debug(true);
        timers.call_later_named(ms(50), "alarm", || block_for(ms(120)));
        event_loop.call_soon_named("chore", || block_for(ms(120)));
        event_loop.call_soon_named("quick", || block_for(ms(99)));
        let stopper = std::rc::Rc::clone(event_loop.core());
        timers.call_later_named(ms(500), "stop", move || stopper.stop());
        event_loop.run_forever().unwrap();
        assert_eq!(
            messages(&reports),
            [
                "Executing <Handle chore> took 0.120 seconds",
                "Executing <TimerHandle alarm> took 0.120 seconds",
            ]
        );
    });
}

#[test]
fn ex3_the_threshold_is_a_separate_knob_that_needs_the_mode() {
    watchdog_default(|| {
        // Virtual time: threshold 50 ms, a 60 ms block with debug off, then with it on.
        if std::env::var_os(DEBUG_ENV).is_some() {
            return;
        }
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        let timers = event_loop.timers();
        timers.set_slow_callback_duration(ms(50));
        event_loop
            .run_until_complete(async { block_for(ms(60)) })
            .unwrap();
        assert!(reports.borrow().is_empty(), "threshold alone does nothing");
        timers.set_debug(true);
        event_loop
            .run_until_complete(async { block_for(ms(60)) })
            .unwrap();
        assert_eq!(
            messages(&reports),
            ["Executing <Task main> took 0.060 seconds"]
        );
    });
}

/// Set in the child process that the next test starts.
const CHILD: &str = "ONELOOP_TIMERS_DEBUG_CHILD";

#[test]
fn ex3_debug_env_child() {
    // Does nothing unless started by the test below, with ONELOOP_DEBUG set.
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    watchdog_default(|| {
        // Virtual time, debug on from the environment, default handler (stderr).
        let mut event_loop = virtual_time_loop();
        assert!(event_loop.timers().debug());
        event_loop
            .run_until_complete(async { block_for(ms(250)) })
            .unwrap();
    });
}

#[test]
fn ex3_the_environment_variable_turns_debug_mode_on() {
    watchdog_default(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        let output = Command::new(exe)
            .args([
                "ex3_debug_env_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(DEBUG_ENV, "1")
            .env(CHILD, "1")
            .output()
            .expect("the test binary runs again");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
        assert!(stdout.contains("1 passed"), "the child test ran:\n{stdout}");
        assert!(
            stderr.contains("Executing <Task main> took 0.250 seconds"),
            "stderr was:\n{stderr}"
        );
    });
}
