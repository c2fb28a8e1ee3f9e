//! Exercise 3: predict the phases quiz; and the phase order it relies on.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use ex08_node::{
    Clock, Interest, NodeLoop, Phase, VirtualClock, close, console_log, current_phase, iteration,
    once_ready, phases_quiz, pipe, predict_phases_quiz, queue_pending, run_quiz, set_immediate,
    set_timeout, stop, watch,
};
use oneloop_testkit::watchdog_default;

/// A virtual clock the test keeps a handle to: `block_for` called from the main script
/// or a callback stands for code that takes that long to run.
#[derive(Clone, Default)]
struct SharedClock(Rc<VirtualClock>);

impl Clock for SharedClock {
    fn now(&self) -> Duration {
        self.0.now()
    }
    fn resolution(&self) -> Duration {
        self.0.resolution()
    }
    fn block_for(&self, duration: Duration) {
        self.0.block_for(duration);
    }
    fn before_park(&self, timeout: Option<Duration>) -> Option<Duration> {
        self.0.before_park(timeout)
    }
    fn is_virtual(&self) -> bool {
        self.0.is_virtual()
    }
}

/// Where each named callback ran: its name, the iteration and the phase.
type Seen = Rc<RefCell<Vec<(&'static str, u64, Phase)>>>;

/// Records `(name, iteration, phase)` into `seen` when called.
fn recorder(seen: &Seen, name: &'static str) -> impl FnOnce() + 'static {
    let seen = Rc::clone(seen);
    move || seen.borrow_mut().push((name, iteration(), current_phase()))
}

#[test]
fn ex3_your_prediction_of_the_phases_quiz_is_what_the_loop_prints() {
    watchdog_default(|| {
        let printed = run_quiz(phases_quiz).expect("the quiz runs");
        let predicted = predict_phases_quiz();
        assert_eq!(
            predicted, printed,
            "your prediction (left) is not what phases_quiz printed (right)"
        );
    });
}

#[test]
fn ex3_one_iteration_visits_the_phases_in_libuvs_order() {
    watchdog_default(|| {
        let seen: Rc<RefCell<Vec<(u64, Phase)>>> = Rc::default();
        let record = {
            let seen = Rc::clone(&seen);
            move || seen.borrow_mut().push((iteration(), current_phase()))
        };
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        node.run(|| {
            let (check, pending, poll, closed) = (
                record.clone(),
                record.clone(),
                record.clone(),
                record.clone(),
            );
            // Queued against the phases' order, to show the order is the loop's.
            set_timeout(record, 0);
            set_immediate(check);
            let (mut sender, receiver) = pipe::new().expect("a pipe");
            sender.write_all(b"x").expect("a byte");
            once_ready(receiver, Interest::READABLE, move |receiver| {
                drop(sender);
                poll();
                let handle = watch(receiver, Interest::READABLE, |_| {}).expect("registers");
                close(handle, closed).expect("deregisters");
            })
            .expect("registers");
            queue_pending(pending);
        })
        .expect("the run ends");
        assert_eq!(
            *seen.borrow(),
            [
                (1, Phase::Pending),
                (1, Phase::Poll),
                (1, Phase::Check),
                (1, Phase::Close),
                // The poll of iteration 2 is the first that may wait, so the virtual
                // clock reaches the timer's millisecond there, and iteration 2 ends
                // with the timers phase (libuv 1.45 and later).
                (2, Phase::Timers),
            ]
        );
    });
}

#[test]
fn ex3_an_immediate_queued_by_an_immediate_runs_in_the_next_iteration() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                set_immediate(|| {
                    console_log(format!("A in {}", iteration()));
                    set_immediate(|| console_log(format!("C in {}", iteration())));
                });
                set_immediate(|| console_log(format!("B in {}", iteration())));
            })
            .expect("the run ends");
        assert_eq!(report.output, ["A in 1", "B in 1", "C in 2"]);
        assert_eq!(report.iterations, 2);
    });
}

#[test]
fn ex3_in_an_io_callback_the_immediate_runs_before_the_zero_timer() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node
            .run(|| {
                let (mut sender, receiver) = pipe::new().expect("a pipe");
                sender.write_all(b"x").expect("a byte");
                once_ready(receiver, Interest::READABLE, move |_| {
                    drop(sender);
                    console_log(format!("io in {:?}", current_phase()));
                    set_timeout(|| console_log("timeout"), 0);
                    set_immediate(|| console_log("immediate"));
                })
                .expect("registers");
            })
            .expect("the run ends");
        assert_eq!(report.output, ["io in Poll", "immediate", "timeout"]);
    });
}

#[test]
fn ex3_on_the_virtual_clock_the_main_scripts_immediate_beats_its_zero_timer() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                set_timeout(|| console_log("timeout"), 0);
                set_immediate(|| console_log("immediate"));
            })
            .expect("the run ends");
        assert_eq!(report.output, ["immediate", "timeout"]);
    });
}

#[test]
fn ex3_a_timer_already_due_after_the_main_script_runs_before_the_first_iteration() {
    watchdog_default(|| {
        let clock = SharedClock::default();
        let seen = Seen::default();
        let mut node = NodeLoop::with_clock(clock.clone()).expect("a poller");
        node.run(|| {
            set_timeout(recorder(&seen, "timer"), 5);
            set_immediate(recorder(&seen, "immediate"));
            // A main script that takes 10 ms: the timer is due when the loop starts.
            clock.block_for(Duration::from_millis(10));
        })
        .expect("the run ends");
        assert_eq!(
            *seen.borrow(),
            [("timer", 0, Phase::Timers), ("immediate", 1, Phase::Check)]
        );
    });
}

#[test]
fn ex3_a_callback_deferred_during_the_poll_runs_before_the_check_phase() {
    watchdog_default(|| {
        let seen = Seen::default();
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        node.run(|| {
            let (mut sender, receiver) = pipe::new().expect("a pipe");
            sender.write_all(b"x").expect("a byte");
            let (pending, immediate) = (recorder(&seen, "pending"), recorder(&seen, "immediate"));
            once_ready(receiver, Interest::READABLE, move |_| {
                drop(sender);
                set_immediate(immediate);
                queue_pending(pending);
            })
            .expect("registers");
        })
        .expect("the run ends");
        assert_eq!(
            *seen.borrow(),
            [
                ("pending", 1, Phase::Pending),
                ("immediate", 1, Phase::Check)
            ]
        );
    });
}

#[test]
fn ex3_after_stop_the_iteration_still_ends_with_its_timers_phase() {
    watchdog_default(|| {
        let clock = SharedClock::default();
        let seen = Seen::default();
        let mut node = NodeLoop::with_clock(clock.clone()).expect("a poller");
        let report = node
            .run(|| {
                set_timeout(recorder(&seen, "timer"), 5);
                let immediate = recorder(&seen, "immediate");
                set_immediate(move || {
                    immediate();
                    // The immediate takes 10 ms, then stops the loop.
                    clock.block_for(Duration::from_millis(10));
                    stop();
                });
            })
            .expect("the run ends");
        assert_eq!(
            *seen.borrow(),
            [("immediate", 1, Phase::Check), ("timer", 1, Phase::Timers)]
        );
        assert_eq!(report.iterations, 1);
    });
}

/// The wrong mechanism "the timers phase reads the clock again before each timer": the
/// phase runs the timers due at the time read when it began. A timer set by a timer
/// callback that then keeps the thread busy is due after that time, so it waits for a
/// later timers phase, after the check phase's immediate. Node 20 prints the same (`A`,
/// `I`, `B`) for this program with a 20 ms busy wait after the inner `setTimeout`.
#[test]
fn ex3_a_timer_set_by_a_slow_timer_callback_waits_for_a_later_timers_phase() {
    watchdog_default(|| {
        let clock = SharedClock::default();
        let slow = clock.clone();
        let mut node = NodeLoop::with_clock(clock).expect("a poller");
        let report = node
            .run(move || {
                set_timeout(
                    move || {
                        set_timeout(|| console_log("B"), 1);
                        slow.block_for(Duration::from_millis(20));
                        set_immediate(|| console_log("I"));
                        console_log("A");
                    },
                    1,
                );
            })
            .expect("the run ends");
        assert_eq!(report.output, ["A", "I", "B"]);
    });
}
