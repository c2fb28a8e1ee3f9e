//! Exercise 1: the drain rule — all nextTicks, then all microtasks, until both are empty.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use ex08_node::{
    NodeLoop, Promise, Queues, console_log, next_tick, queue_microtask, set_immediate, set_timeout,
};
use oneloop_testkit::watchdog_default;

type Log = Rc<RefCell<Vec<&'static str>>>;

fn push(log: &Log, line: &'static str) -> Box<dyn FnOnce()> {
    let log = Rc::clone(log);
    Box::new(move || log.borrow_mut().push(line))
}

fn run(main: impl FnOnce()) -> Vec<String> {
    let mut node = NodeLoop::with_virtual_clock().expect("a poller");
    node.run(main).expect("the run ends").output
}

#[test]
fn ex1_ticks_run_before_microtasks_whatever_order_they_were_queued_in() {
    watchdog_default(|| {
        let queues = Queues::new();
        let log: Log = Rc::default();
        queues.push_microtask(push(&log, "microtask 1"));
        queues.push_tick(push(&log, "tick 1"));
        queues.push_microtask(push(&log, "microtask 2"));
        queues.push_tick(push(&log, "tick 2"));
        assert_eq!(queues.drain(), 4);
        assert_eq!(
            *log.borrow(),
            ["tick 1", "tick 2", "microtask 1", "microtask 2"]
        );
        assert!(queues.is_empty());
    });
}

#[test]
fn ex1_a_tick_queued_by_a_tick_runs_before_any_microtask() {
    watchdog_default(|| {
        let queues = Rc::new(Queues::new());
        let log: Log = Rc::default();
        queues.push_microtask(push(&log, "microtask"));
        let (q, l) = (Rc::clone(&queues), Rc::clone(&log));
        queues.push_tick(Box::new(move || {
            l.borrow_mut().push("tick 1");
            q.push_tick(push(&l, "tick 2"));
        }));
        assert_eq!(queues.drain(), 3);
        assert_eq!(*log.borrow(), ["tick 1", "tick 2", "microtask"]);
    });
}

#[test]
fn ex1_a_microtask_queued_by_a_microtask_runs_before_a_tick_it_queued() {
    watchdog_default(|| {
        let queues = Rc::new(Queues::new());
        let log: Log = Rc::default();
        let (q, l) = (Rc::clone(&queues), Rc::clone(&log));
        queues.push_microtask(Box::new(move || {
            l.borrow_mut().push("microtask 1");
            q.push_tick(push(&l, "tick"));
            q.push_microtask(push(&l, "microtask 2"));
        }));
        assert_eq!(queues.drain(), 3);
        assert_eq!(*log.borrow(), ["microtask 1", "microtask 2", "tick"]);
    });
}

#[test]
fn ex1_the_drain_goes_round_until_both_queues_are_empty() {
    watchdog_default(|| {
        // tick -> microtask -> tick -> microtask: four rounds of the outer loop.
        let queues = Rc::new(Queues::new());
        let log: Log = Rc::default();
        let (q, l) = (Rc::clone(&queues), Rc::clone(&log));
        queues.push_tick(Box::new(move || {
            l.borrow_mut().push("tick 1");
            let (q2, l2) = (Rc::clone(&q), Rc::clone(&l));
            q.push_microtask(Box::new(move || {
                l2.borrow_mut().push("microtask 1");
                let (q3, l3) = (Rc::clone(&q2), Rc::clone(&l2));
                q2.push_tick(Box::new(move || {
                    l3.borrow_mut().push("tick 2");
                    q3.push_microtask(push(&l3, "microtask 2"));
                }));
            }));
        }));
        assert_eq!(queues.drain(), 4);
        assert_eq!(
            *log.borrow(),
            ["tick 1", "microtask 1", "tick 2", "microtask 2"]
        );
        assert!(queues.is_empty());
    });
}

#[test]
fn ex1_an_empty_drain_runs_nothing() {
    watchdog_default(|| {
        assert_eq!(Queues::new().drain(), 0);
    });
}

#[test]
fn ex1_after_the_main_script_ticks_come_before_promises() {
    watchdog_default(|| {
        let output = run(|| {
            Promise::resolved(()).then(|()| console_log("promise"));
            next_tick(|| console_log("tick"));
            queue_microtask(|| console_log("microtask"));
            console_log("main");
        });
        assert_eq!(output, ["main", "tick", "promise", "microtask"]);
    });
}

#[test]
fn ex1_the_queues_drain_between_two_timer_callbacks() {
    watchdog_default(|| {
        let output = run(|| {
            set_timeout(
                || {
                    console_log("timeout 1");
                    Promise::resolved(()).then(|()| console_log("promise 1"));
                    next_tick(|| console_log("tick 1"));
                },
                0,
            );
            set_timeout(|| console_log("timeout 2"), 0);
        });
        assert_eq!(output, ["timeout 1", "tick 1", "promise 1", "timeout 2"]);
    });
}

#[test]
fn ex1_a_tick_queued_in_an_immediate_runs_before_the_next_immediate() {
    watchdog_default(|| {
        let output = run(|| {
            set_immediate(|| {
                console_log("immediate 1");
                Promise::resolved(()).then(|()| console_log("promise"));
                next_tick(|| console_log("tick"));
            });
            set_immediate(|| console_log("immediate 2"));
        });
        assert_eq!(output, ["immediate 1", "tick", "promise", "immediate 2"]);
    });
}

#[test]
fn ex1_a_tick_that_queues_itself_runs_every_time_before_the_loop_moves_on() {
    watchdog_default(|| {
        fn again(left: u32) {
            if left == 0 {
                console_log("ticks done");
            } else {
                next_tick(move || again(left - 1));
            }
        }
        let output = run(|| {
            set_immediate(|| console_log("immediate"));
            again(10_000);
        });
        assert_eq!(output, ["ticks done", "immediate"]);
    });
}

/// The wrong mechanism "drain after timers and immediates only": an I/O callback is
/// a callback like the others, and the queues drain right after it, before the check
/// phase. Node 20 prints `io`, `tick`, `promise`, `immediate` for the same program
/// (with `fs.readFile` as the I/O).
#[test]
fn ex1_the_queues_drain_after_an_io_callback_before_the_check_phase() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node
            .run(|| {
                let (mut sender, receiver) = ex08_node::pipe::new().expect("a pipe");
                sender.write_all(b"x").expect("a byte");
                ex08_node::once_ready(receiver, ex08_node::Interest::READABLE, move |_| {
                    drop(sender);
                    console_log("io");
                    next_tick(|| console_log("tick"));
                    Promise::resolved(()).then(|()| console_log("promise"));
                    set_immediate(|| console_log("immediate"));
                })
                .expect("registers");
            })
            .expect("the run ends");
        assert_eq!(report.output, ["io", "tick", "promise", "immediate"]);
    });
}

/// The wrong mechanism "drain once after the poll phase's callbacks": every I/O
/// callback is followed by the drain, like a timer's or an immediate's. Two pipes ready
/// in the same poll: each callback's tick runs before the other callback.
#[test]
fn ex1_the_queues_drain_after_each_io_callback_of_one_poll() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node
            .run(|| {
                for name in ["a", "b"] {
                    let (mut sender, receiver) = ex08_node::pipe::new().expect("a pipe");
                    sender.write_all(b"x").expect("a byte");
                    ex08_node::once_ready(receiver, ex08_node::Interest::READABLE, move |_| {
                        drop(sender);
                        // The iteration, so that the test sees both ran in one poll.
                        console_log(format!("io in {}", ex08_node::iteration()));
                        next_tick(move || console_log(format!("tick {name}")));
                    })
                    .expect("registers");
                }
            })
            .expect("the run ends");
        // Which pipe the poller reports first is the kernel's choice.
        let ticks: Vec<&str> = report.output.iter().map(String::as_str).collect();
        assert_eq!(ticks[0], "io in 1", "{ticks:?}");
        assert_eq!(ticks[2], "io in 1", "both pipes in one poll: {ticks:?}");
        assert!(
            ticks[1].starts_with("tick") && ticks[3].starts_with("tick"),
            "{ticks:?}"
        );
    });
}
