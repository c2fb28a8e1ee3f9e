//! Debug mode: slow handles reported as asyncio reports them.
//!
//! These tests need the loop's timer driver (every park sweeps and computes a timeout)
//! but not `sleep`, so they are named for exercise 3: a task gives up its step with
//! `yield_now`. Durations come from the loop's clock: in virtual time a `block_for`
//! inside a handle is what makes it slow.
//!
//! Debug mode can be turned on from the environment (`ONELOOP_DEBUG`), so no test here
//! depends on the environment it was started in: a test about the default runs in a
//! child process with the variable removed, one about the variable in a child with it
//! set, and the others set the mode through the API.

use std::process::Output;

use crate::common::{ms, record_reports};
use ex05_timers::{
    DEBUG_ENV, DEFAULT_SLOW_CALLBACK_DURATION, LoopTimers, SLOW_CALLBACK, block_for,
    virtual_time_loop,
};
use oneloop_core::yield_now;
use oneloop_testkit::watchdog_default;

/// Set in the child processes that the tests below start.
const CHILD: &str = "ONELOOP_TIMERS_DEBUG_CHILD";

/// Whether this process is a child started by [`run_child`].
fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` of this binary in a child process, with `ONELOOP_DEBUG` set
/// to `debug`, or removed when `debug` is `None`; fails unless the child passed.
fn run_child(name: &str, debug: Option<&str>) -> Output {
    let mut command = oneloop_testkit::rerun_alone(module_path!(), name);
    command.env(CHILD, "1");
    match debug {
        Some(value) => command.env(DEBUG_ENV, value),
        None => command.env_remove(DEBUG_ENV),
    };
    let output = command.output().expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the child running {name} failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("1 passed"), "the child test ran:\n{stdout}");
    output
}

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
    // The default is what a loop gets with ONELOOP_DEBUG unset: ask a child so.
    watchdog_default(|| run_child("ex3_debug_off_child", None));
}

#[test]
fn ex3_debug_off_child() {
    // Does nothing unless started by the test above, with ONELOOP_DEBUG removed.
    if !is_child() {
        return;
    }
    watchdog_default(|| {
        // Virtual time, debug mode untouched: main blocks 0.25 s.
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        let timers = event_loop.timers();
        assert!(
            !timers.debug(),
            "debug mode is off when ONELOOP_DEBUG is unset"
        );
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
                yield_now().await;
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
        // The mode is set through the API both times, whatever ONELOOP_DEBUG says.
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        let timers = event_loop.timers();
        timers.set_debug(false);
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

#[test]
fn ex3_debug_mode_turned_off_again_stops_the_reports() {
    watchdog_default(|| {
        // Virtual time: a slow step with debug on is reported; after `set_debug(false)`
        // the same slow step on the same loop is not.
        let mut event_loop = virtual_time_loop();
        let reports = record_reports(&event_loop);
        let timers = event_loop.timers();
        timers.set_debug(true);
        event_loop
            .run_until_complete(async { block_for(ms(150)) })
            .unwrap();
        assert_eq!(
            messages(&reports),
            ["Executing <Task main> took 0.150 seconds"]
        );
        timers.set_debug(false);
        event_loop
            .run_until_complete(async { block_for(ms(150)) })
            .unwrap();
        assert_eq!(
            messages(&reports),
            ["Executing <Task main> took 0.150 seconds"],
            "nothing new once the mode is off"
        );
    });
}

#[test]
fn ex3_debug_env_child() {
    // Does nothing unless started by the test below, with ONELOOP_DEBUG set.
    if !is_child() {
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
        let output = run_child("ex3_debug_env_child", Some("1"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("Executing <Task main> took 0.250 seconds"),
            "stderr was:\n{stderr}"
        );
    });
}
