//! asyncio's names on the loop itself: `call_later`, `call_at`, `time`, debug mode,
//! and `run_with` / `run_debug`, whose setup sees turn 1.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::hooks::with_current;
use oneloop_core::{Observer, yield_now};
use oneloop_testkit::watchdog_default;
use oneloop_timers::prelude::TimerMethods;
use oneloop_timers::{LoopTimers, run_debug, run_with, sleep, virtual_time_loop};

#[test]
fn call_later_and_call_at_on_the_loop_share_one_heap_by_deadline() {
    let log = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let log = Rc::new(RefCell::new(Vec::new()));
        let (later, at) = (Rc::clone(&log), Rc::clone(&log));
        // call_later first, with the later deadline; call_at second, with the earlier.
        event_loop.call_later(Duration::from_secs(2), move || {
            let now = with_current(|core| core.time()).expect("in the loop");
            later.borrow_mut().push(format!("later@{}", now.as_secs()));
        });
        event_loop.call_at(Duration::from_secs(1), move || {
            let now = with_current(|core| core.time()).expect("in the loop");
            at.borrow_mut().push(format!("at@{}", now.as_secs()));
        });
        event_loop
            .run_until_complete(sleep(Duration::from_secs(3)))
            .expect("main finishes");
        assert_eq!(event_loop.time(), Duration::from_secs(3));
        log.take()
    });
    assert_eq!(log, ["at@1", "later@2"]);
}

#[test]
fn the_loops_debug_switch_is_the_timer_layers_debug_mode() {
    let event_loop = virtual_time_loop();
    event_loop.set_debug(true);
    assert!(event_loop.get_debug() && event_loop.timers().debug());
    event_loop.set_debug(false);
    assert!(!event_loop.get_debug() && !event_loop.timers().debug());
}

/// An observer that writes down the turns it is told of.
#[derive(Default)]
struct Turns(RefCell<Vec<u64>>);

impl Observer for Turns {
    fn turn_started(&self, turn: u64) {
        self.0.borrow_mut().push(turn);
    }
}

#[test]
fn an_observer_added_in_run_with_sees_turn_one() {
    let turns = watchdog_default(|| {
        let turns = Rc::new(Turns::default());
        let observer = Rc::clone(&turns);
        run_with(move |event_loop| event_loop.add_observer(observer), async {
            yield_now().await;
            sleep(Duration::from_millis(1)).await;
        })
        .expect("main finishes");
        turns.0.take()
    });
    assert_eq!(turns.first(), Some(&1), "turns seen: {turns:?}");
}

#[test]
fn debug_mode_set_in_run_with_times_the_first_turns_handles() {
    let reports = watchdog_default(|| {
        let reports = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&reports);
        run_with(
            move |event_loop| {
                event_loop.set_debug(true);
                // Every handle is slow at a zero threshold: main's first step is reported.
                event_loop
                    .timers()
                    .set_slow_callback_duration(Duration::ZERO);
                event_loop.set_exception_handler(move |report| {
                    let turn = with_current(|core| core.turn()).unwrap_or(0);
                    seen.borrow_mut().push(format!("{turn}:{}", report.message));
                });
            },
            async {},
        )
        .expect("main finishes");
        reports.take()
    });
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("1:Executing <Task main>")),
        "reports: {reports:?}"
    );
}

#[test]
fn run_debug_turns_debug_mode_on_before_main_runs() {
    let debug = watchdog_default(|| {
        run_debug(async { with_current(|core| core.get_debug()).expect("in the loop") })
            .expect("main finishes")
    });
    assert!(debug);
}

#[test]
fn the_timer_methods_panic_on_a_loop_built_without_a_timer_driver() {
    // Stage 4's loop over its own `ThreadParker`: no timer layer in its extensions.
    let event_loop = oneloop_core::EventLoop::new();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        event_loop.call_later(Duration::from_secs(1), || {});
    }))
    .expect_err("call_later needs a timer driver");
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .expect("a panic with a message");
    assert!(message.contains("no timer driver"), "{message}");
    assert_eq!(event_loop.live_tasks(), 0, "nothing was queued");
}
