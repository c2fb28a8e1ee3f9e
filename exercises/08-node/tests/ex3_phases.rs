//! Exercise 3: predict the phases quiz; and the phase order it relies on.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use ex08_node::{
    Interest, NodeLoop, Phase, close, console_log, current_phase, iteration, once_ready,
    phases_quiz, pipe, predict_phases_quiz, queue_pending, run_quiz, set_immediate, set_timeout,
    watch,
};
use oneloop_testkit::watchdog_default;

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
                (3, Phase::Timers),
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
