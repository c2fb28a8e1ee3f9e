//! Exercise 2: the poll timeout rule, and the loop's life that follows from it.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::io::{Read, Write};
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::thread;

use ex08_node::{
    Interest, NodeError, NodeLoop, PollFacts, PollTimeout, clear_interval, console_log, loop_time,
    once_ready, pipe, poll_timeout, set_immediate, set_interval, set_timeout, spawn_async, stop,
};
use oneloop_testkit::watchdog_default;

/// A loop with one timer and nothing else queued.
fn waiting_for_a_timer() -> PollFacts {
    PollFacts {
        alive: true,
        next_timer: Some(30),
        now: 10,
        ..PollFacts::default()
    }
}

#[test]
fn ex2_with_only_a_timer_the_poll_waits_until_its_deadline() {
    watchdog_default(|| {
        assert_eq!(
            poll_timeout(&waiting_for_a_timer()),
            PollTimeout::Millis(20)
        );
    });
}

#[test]
fn ex2_a_timer_already_due_gives_zero_not_an_underflow() {
    watchdog_default(|| {
        let facts = PollFacts {
            now: 45,
            ..waiting_for_a_timer()
        };
        assert_eq!(poll_timeout(&facts), PollTimeout::Millis(0));
        // Due exactly now is due: the poll only looks.
        let facts = PollFacts {
            now: 30,
            ..waiting_for_a_timer()
        };
        assert_eq!(poll_timeout(&facts), PollTimeout::Millis(0), "due now");
    });
}

#[test]
fn ex2_with_no_timer_the_poll_waits_for_ever() {
    watchdog_default(|| {
        let facts = PollFacts {
            next_timer: None,
            ..waiting_for_a_timer()
        };
        assert_eq!(poll_timeout(&facts), PollTimeout::Forever);
    });
}

#[test]
fn ex2_anything_that_must_run_this_iteration_makes_the_poll_only_look() {
    watchdog_default(|| {
        let cases = [
            (
                "stopping",
                PollFacts {
                    stopping: true,
                    ..waiting_for_a_timer()
                },
            ),
            (
                "nothing alive",
                PollFacts {
                    alive: false,
                    ..waiting_for_a_timer()
                },
            ),
            (
                "pending callbacks",
                PollFacts {
                    pending: true,
                    ..waiting_for_a_timer()
                },
            ),
            (
                "queued immediates",
                PollFacts {
                    immediates: true,
                    ..waiting_for_a_timer()
                },
            ),
            (
                "close callbacks",
                PollFacts {
                    closing: true,
                    ..waiting_for_a_timer()
                },
            ),
            (
                "immediates and no timer",
                PollFacts {
                    immediates: true,
                    next_timer: None,
                    ..waiting_for_a_timer()
                },
            ),
        ];
        for (why, facts) in cases {
            assert_eq!(poll_timeout(&facts), PollTimeout::Millis(0), "{why}");
        }
    });
}

#[test]
fn ex2_the_virtual_clock_jumps_to_each_deadline_and_the_loop_then_ends() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                set_timeout(
                    || console_log(format!("250 ms timer at {}", loop_time())),
                    250,
                );
                set_timeout(|| console_log(format!("0 ms timer at {}", loop_time())), 0);
            })
            .expect("the run ends");
        assert_eq!(report.output, ["0 ms timer at 1", "250 ms timer at 250"]);
    });
}

/// An interval of 10 ms that logs each run with the loop's time and clears itself at
/// its third.
fn three_runs_every_10_ms() {
    let id = std::rc::Rc::new(std::cell::Cell::new(None));
    let own = std::rc::Rc::clone(&id);
    let mut runs = 0;
    id.set(Some(set_interval(
        move || {
            runs += 1;
            console_log(format!("run {runs} at {}", loop_time()));
            if runs == 3
                && let Some(id) = own.get()
            {
                clear_interval(id);
            }
        },
        10,
    )));
}

#[test]
fn ex2_an_interval_keeps_the_loop_alive_until_cleared() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                three_runs_every_10_ms();
            })
            .expect("the run ends");
        assert_eq!(report.output, ["run 1 at 10", "run 2 at 20", "run 3 at 30"]);
    });
}

#[test]
fn ex2_a_loop_with_nothing_alive_ends_after_the_main_script() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node.run(|| console_log("main")).expect("the run ends");
        assert_eq!(report.output, ["main"]);
        assert_eq!(report.iterations, 0);
    });
}

#[test]
fn ex2_the_poll_blocks_on_real_io_until_another_thread_writes() {
    watchdog_default(|| {
        let (mut sender, receiver) = pipe::new().expect("a pipe");
        let mut node = NodeLoop::new().expect("a poller");
        let writer = thread::spawn(move || {
            // Blocking is fine on this thread: it writes one byte and ends.
            sender.set_nonblocking(false).expect("a blocking sender");
            sender.write_all(b"!").expect("the loop's end is open");
        });
        let report = node
            .run(|| {
                once_ready(receiver, Interest::READABLE, |mut receiver| {
                    let mut byte = [0u8; 1];
                    receiver.read_exact(&mut byte).expect("the byte is there");
                    console_log(format!("read {}", byte[0] as char));
                    set_immediate(|| console_log("immediate after io"));
                })
                .expect("registers");
            })
            .expect("the run ends");
        writer.join().expect("the writer finishes");
        assert_eq!(report.output, ["read !", "immediate after io"]);
    });
}

#[test]
fn ex2_stop_ends_the_loop_after_this_iteration_even_with_a_timer_armed() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node
            .run(|| {
                // An hour away: were the poll to wait for it, the watchdog would fail.
                set_timeout(|| console_log("never"), 3_600_000);
                set_immediate(|| {
                    console_log("immediate");
                    stop();
                });
            })
            .expect("the run ends");
        assert_eq!(report.output, ["immediate"]);
        assert_eq!(report.iterations, 1);
    });
}

/// The wrong mechanism "re-arm an interval from the time read after its callback": the
/// time is read just before the callback, so a slow callback does not push the later
/// runs back. A 100 ms interval whose callback keeps the thread busy for 80 ms runs at
/// 100, 200, 300 and 400 ms, all before a timer its first run set for 480 ms (re-armed
/// after the callback, it would run at 100, 280, 460 and 640). Node 20 prints the same.
#[test]
fn ex2_a_slow_interval_keeps_its_pace() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                let id = std::rc::Rc::new(std::cell::Cell::new(None));
                let own = std::rc::Rc::clone(&id);
                let mut runs = 0;
                id.set(Some(set_interval(
                    move || {
                        runs += 1;
                        console_log(format!("run {runs} at {}", loop_time()));
                        if runs == 1 {
                            set_timeout(|| console_log(format!("timer at {}", loop_time())), 380);
                        }
                        ex08_node::busy_wait(80);
                        if runs == 4
                            && let Some(id) = own.get()
                        {
                            clear_interval(id);
                        }
                    },
                    100,
                )));
            })
            .expect("the run ends");
        assert_eq!(
            report.output,
            [
                "run 1 at 100",
                "run 2 at 200",
                "run 3 at 300",
                "run 4 at 400",
                "timer at 480"
            ]
        );
    });
}

/// The wrong mechanism "re-arm an interval from the time its timers phase began": the
/// time is read just before the interval's own callback. A slow timer due in the same
/// phase runs first and keeps the thread busy for 30 ms, so the interval's first run
/// reads 40 ms and its next runs come 10 ms apart from there (re-armed from 10 ms, it
/// would be due again at once).
#[test]
fn ex2_an_interval_after_a_slow_timer_in_its_phase_is_re_armed_from_its_own_start() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                set_timeout(|| ex08_node::busy_wait(30), 10);
                three_runs_every_10_ms();
            })
            .expect("the run ends");
        assert_eq!(report.output, ["run 1 at 40", "run 2 at 50", "run 3 at 60"]);
    });
}

/// Chapter 8.4: a wake from another thread reported ahead of a ready watch in one poll
/// still lets that watch fire before the run ends; a watch left out of the table would
/// keep the next run waiting for ever.
#[test]
fn ex2_a_foreign_wake_still_fires_the_watch_ready_in_the_same_poll() {
    let (first, fired, second) = watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let fired = Rc::new(Cell::new(0));
        let counted = Rc::clone(&fired);
        let first = node.run(move || {
            let (mut sender, receiver) = pipe::new().expect("a pipe");
            once_ready(receiver, Interest::READABLE, move |_| {
                counted.set(counted.get() + 1);
            })
            .expect("registers");
            let waker: Rc<RefCell<Option<Waker>>> = Rc::default();
            let kept = Rc::clone(&waker);
            spawn_async(poll_fn(move |cx| {
                *kept.borrow_mut() = Some(cx.waker().clone());
                Poll::<()>::Pending
            }));
            // Both are ready before the poll: the wake first, then the pipe.
            let waker = waker.borrow_mut().take().expect("the task polled once");
            thread::spawn(move || waker.wake())
                .join()
                .expect("the waking thread ends");
            sender.write_all(b"x").expect("one byte");
        });
        let fired = fired.get();
        let second = node.run(|| {}).map(|report| report.iterations);
        (
            first
                .map(|report| report.iterations)
                .map_err(|e| e.to_string()),
            fired,
            second.map_err(|e| e.to_string()),
        )
    });
    assert_eq!(
        first,
        Err(NodeError::ForeignWake.to_string()),
        "the wake still ends the run"
    );
    assert_eq!(fired, 1, "the watch ready in the same poll fired");
    assert_eq!(second, Ok(0), "the next run finds nothing alive");
}
