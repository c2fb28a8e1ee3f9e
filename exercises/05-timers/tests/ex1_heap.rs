//! Exercise 1: the timer heap, earliest deadline first, ties in scheduling order.
//!
//! The tests through the loop also need exercises 2 and 3 (every park sweeps and
//! computes a timeout), and `sleep` needs exercise 4: they are named for the last one.

use std::rc::Rc;
use std::time::Duration;

use crate::common::{logged_virtual_loop, ms, shared};
use ex05_timers::{LoopTimers, TimerHeap, call_at, call_later, time};
use oneloop_core::Label;
use oneloop_testkit::watchdog_default;

fn push(heap: &mut TimerHeap, at_ms: u64, name: &'static str) {
    heap.push(ms(at_ms), Label::from(name), Box::new(|| {}));
}

fn drain(heap: &mut TimerHeap) -> Vec<String> {
    std::iter::from_fn(|| heap.pop())
        .map(|timer| timer.label().to_string())
        .collect()
}

#[test]
fn ex1_the_heap_pops_the_earliest_deadline_first() {
    watchdog_default(|| {
        let mut heap = TimerHeap::new();
        for (at, name) in [(300, "c"), (100, "a"), (500, "e"), (200, "b"), (400, "d")] {
            push(&mut heap, at, name);
        }
        assert_eq!(heap.earliest(), Some(ms(100)));
        assert_eq!(drain(&mut heap), ["a", "b", "c", "d", "e"]);
        assert!(heap.is_empty());
    });
}

#[test]
fn ex1_equal_deadlines_pop_in_scheduling_order() {
    watchdog_default(|| {
        let mut heap = TimerHeap::new();
        let names = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
        for name in names {
            push(&mut heap, 100, name);
        }
        push(&mut heap, 50, "early");
        assert_eq!(
            drain(&mut heap),
            ["early", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]
        );
    });
}

#[test]
fn ex1_sequence_numbers_follow_scheduling_order() {
    watchdog_default(|| {
        let mut heap = TimerHeap::new();
        let first = heap.push(ms(9), Label::from("x"), Box::new(|| {}));
        let second = heap.push(ms(1), Label::from("y"), Box::new(|| {}));
        assert!(first.id() < second.id());
        assert_eq!(heap.peek().map(|head| head.seq()), Some(1));
    });
}

/// Deadlines in pseudo-random order, drawn from few values so that many are equal
/// (a xorshift generator: the same sequence on every run).
fn scrambled_deadlines(count: usize) -> Vec<u64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % 1_000
        })
        .collect()
}

/// Pushes a timer at each deadline (in ms) into a fresh heap, and says what
/// `(when, seq)` each one got: the sequence numbers count the pushes from zero.
fn push_all(heap: &mut TimerHeap, deadlines: &[u64]) -> Vec<(Duration, u64)> {
    deadlines
        .iter()
        .zip(0..)
        .map(|(&at, seq)| {
            let handle = heap.push(ms(at), Label::from("t"), Box::new(|| {}));
            (handle.when(), seq)
        })
        .collect()
}

fn drain_keys(heap: &mut TimerHeap) -> Vec<(Duration, u64)> {
    std::iter::from_fn(|| heap.pop())
        .map(|timer| (timer.when(), timer.seq()))
        .collect()
}

#[test]
fn ex1_ten_thousand_timers_pushed_in_random_order_pop_sorted_by_deadline_then_seq() {
    watchdog_default(|| {
        let mut heap = TimerHeap::new();
        let mut expected = push_all(&mut heap, &scrambled_deadlines(10_000));
        expected.sort();
        assert_eq!(drain_keys(&mut heap), expected);
    });
}

#[test]
fn ex3_a_rebuild_of_ten_thousand_timers_keeps_their_order() {
    watchdog_default(|| {
        let mut heap = TimerHeap::new();
        let deadlines = scrambled_deadlines(10_000);
        let handles: Vec<_> = deadlines
            .iter()
            .map(|&at| heap.push(ms(at), Label::from("t"), Box::new(|| {})))
            .collect();
        // Two timers in three cancelled: more than half, so the sweep rebuilds.
        let mut expected = Vec::new();
        for (seq, handle) in handles.iter().enumerate() {
            if seq % 3 == 0 {
                expected.push((handle.when(), seq as u64));
            } else {
                handle.cancel();
            }
        }
        let gone = heap.sweep();
        assert_eq!(gone.len(), 10_000 - expected.len(), "rebuilt without them");
        assert_eq!(heap.cancelled(), 0);
        expected.sort();
        assert_eq!(drain_keys(&mut heap), expected);
    });
}

#[test]
fn ex3_timers_with_equal_deadlines_fire_in_scheduling_order_through_the_loop() {
    watchdog_default(|| {
        // Virtual time: five timers at 0.2 s and one at 0.1 s, scheduled from the loop.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let fired = shared::<(&str, Duration)>();
        for name in ["a", "b", "c", "d", "e"] {
            let fired = Rc::clone(&fired);
            timers.call_later_named(ms(200), name, move || {
                fired.borrow_mut().push((name, time()));
            });
        }
        let early = Rc::clone(&fired);
        timers.call_at_named(ms(100), "early", move || {
            early.borrow_mut().push(("early", time()));
        });
        let stopper = Rc::clone(event_loop.core());
        timers.call_later_named(ms(200), "stop", move || stopper.stop());
        event_loop.run_forever().unwrap();
        assert_eq!(
            *fired.borrow(),
            [
                ("early", ms(100)),
                ("a", ms(200)),
                ("b", ms(200)),
                ("c", ms(200)),
                ("d", ms(200)),
                ("e", ms(200)),
            ]
        );
        // One turn per distinct deadline: the five ties come due together.
        assert_eq!(log.labels(1), ["early"]);
        assert_eq!(log.labels(2), ["a", "b", "c", "d", "e", "stop"]);
        assert_eq!(log.turns()[1].park.timers_moved, 6);
    });
}

#[test]
fn ex4_time_call_later_and_call_at_work_inside_tasks() {
    watchdog_default(|| {
        let (mut event_loop, _log) = logged_virtual_loop();
        let seen = shared::<(&str, Duration)>();
        let inside = Rc::clone(&seen);
        event_loop
            .run_until_complete(async move {
                let start = time();
                let later = Rc::clone(&inside);
                call_later(ms(250), move || later.borrow_mut().push(("later", time())));
                let at = Rc::clone(&inside);
                call_at(start + ms(50), move || at.borrow_mut().push(("at", time())));
                ex05_timers::sleep(ms(300)).await;
                inside.borrow_mut().push(("main", time()));
            })
            .unwrap();
        assert_eq!(
            *seen.borrow(),
            [("at", ms(50)), ("later", ms(250)), ("main", ms(300))]
        );
        assert_eq!(event_loop.timers().time(), ms(300));
    });
}

#[test]
fn ex1_deadlines_past_the_nanosecond_limit_sort_as_its_last_nanosecond() {
    watchdog_default(|| {
        // Deadlines are whole nanoseconds: one past 584 years is kept as the last one,
        // and then ties with a deadline of exactly that nanosecond (scheduling order).
        let last = Duration::from_nanos(u64::MAX);
        let mut heap = TimerHeap::new();
        let max = heap.push(Duration::MAX, Label::from("max"), Box::new(|| {}));
        heap.push(last, Label::from("last"), Box::new(|| {}));
        heap.push(
            last - Duration::from_nanos(1),
            Label::from("before"),
            Box::new(|| {}),
        );
        assert_eq!(max.when(), last);
        assert_eq!(drain(&mut heap), ["before", "max", "last"]);
    });
}

#[test]
fn ex3_equal_deadlines_scheduled_in_different_turns_run_in_scheduling_order() {
    watchdog_default(|| {
        // Virtual time: four timers at 0.1 s, scheduled from the loop before it runs,
        // from main's first and second steps, and from a timer callback at 0.05 s. The
        // last one's label is built at run time.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let fired = shared::<String>();
        let record = |name: &str| {
            let fired = Rc::clone(&fired);
            let name = name.to_string();
            move || fired.borrow_mut().push(name)
        };
        timers.call_at_named(ms(100), "before the run", record("before the run"));
        let in_callback = record("from a callback");
        timers.call_at_named(ms(50), "at 50 ms", move || {
            let name = format!("callback {}", 50);
            call_at_named_here(ms(100), name, in_callback);
        });
        let (first, second) = (record("main, step 1"), record("main, step 2"));
        event_loop
            .run_until_complete(async move {
                let timers = ex05_timers::Timers::current().unwrap();
                timers.call_at_named(ms(100), "main, step 1", first);
                oneloop_core::yield_now().await;
                timers.call_at_named(ms(100), "main, step 2", second);
                ex05_timers::sleep(ms(200)).await;
            })
            .unwrap();
        assert_eq!(
            *fired.borrow(),
            [
                "before the run",
                "main, step 1",
                "main, step 2",
                "from a callback"
            ]
        );
        // All four came due in one park and ran in one turn, the built label reported.
        let turn = log
            .turns()
            .into_iter()
            .find(|turn| turn.labels.iter().any(|label| label == "before the run"))
            .expect("the tied timers ran");
        assert_eq!(
            turn.labels,
            [
                "before the run",
                "main, step 1",
                "main, step 2",
                "callback 50"
            ]
        );
        assert_eq!(turn.end, ms(100));
    });
}

/// Schedules on the running loop's timers, with a label built at run time.
fn call_at_named_here(when: Duration, label: String, callback: impl FnOnce() + 'static) {
    let handle = ex05_timers::Timers::current()
        .expect("a loop runs")
        .call_at_named(when, label, callback);
    assert_eq!(
        handle.label().to_string(),
        "callback 50",
        "the built label is kept"
    );
}
