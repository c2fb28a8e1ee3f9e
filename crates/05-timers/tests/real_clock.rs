//! The stage's scenarios on `RealClock`, as the examples `gather_sleeps`, `ticker`,
//! `pulse` and `fifty` run them (here shorter: tens of milliseconds, not hundreds).
//!
//! On the real clock `block_for` really sleeps the loop's thread, and the examples print
//! what they measured. Figures vary from run to run, so nothing here asserts one. What
//! holds on every machine is asserted instead: orders, and lower bounds that come from
//! the rules (a timer never fires before its deadline; nothing runs while the thread is
//! blocked).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{gather, spawn, yield_now};
use oneloop_testkit::watchdog_default;
use oneloop_timers::{block_for, real_time_loop, sleep, time};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn gather_sleeps_gives_argument_order_and_the_children_finish_by_deadline() {
    let (results, finished, total) = watchdog_default(|| {
        let mut event_loop = real_time_loop();
        let finished = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&finished);
        let (results, total) = event_loop
            .run_until_complete(async move {
                let naps = [30, 10, 20].map(|length| {
                    let seen = Rc::clone(&seen);
                    async move {
                        sleep(ms(length)).await;
                        seen.borrow_mut().push((length, time()));
                        length
                    }
                });
                let results = gather(naps).await.expect("no child panics");
                (results, time())
            })
            .expect("main finishes");
        let finished = finished.borrow().clone();
        (results, finished, total)
    });
    assert_eq!(results, vec![30, 10, 20], "results in argument order");
    let order: Vec<u64> = finished.iter().map(|(length, _)| *length).collect();
    assert_eq!(order, [10, 20, 30], "children finish in deadline order");
    for (length, at) in &finished {
        assert!(*at >= ms(*length), "a {length} ms sleep ended at {at:?}");
    }
    assert!(total >= ms(30), "gather waits for its longest child");
}

/// The ticker of the chapter: three 10 ms sleeps; whether it started before main
/// blocks for 35 ms decides when its first timer is registered.
fn ticker_before_a_block(started: bool) -> Vec<Duration> {
    watchdog_default(move || {
        let mut event_loop = real_time_loop();
        let ticks = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&ticks);
        event_loop
            .run_until_complete(async move {
                let ticking = spawn(async move {
                    for _ in 0..3 {
                        sleep(ms(10)).await;
                        seen.borrow_mut().push(time());
                    }
                });
                if started {
                    yield_now().await;
                }
                block_for(ms(35));
                ticking.await.expect("the ticker does not panic");
            })
            .expect("main finishes");
        ticks.borrow().clone()
    })
}

#[test]
fn the_ticker_on_the_real_clock_ticks_no_earlier_than_on_the_virtual_one() {
    // The virtual clock gives 35/45/55 ms (started) and 45/55/65 ms (only spawned);
    // the real clock can only be later, never earlier.
    for (started, virtual_ticks) in [(true, [35, 45, 55]), (false, [45, 55, 65])] {
        let ticks = ticker_before_a_block(started);
        assert_eq!(ticks.len(), 3);
        for (tick, at_least) in ticks.iter().zip(virtual_ticks) {
            assert!(
                *tick >= ms(at_least),
                "started: {started}: a tick at {tick:?}, before {at_least} ms: {ticks:?}"
            );
        }
    }
}

/// The pulse: a task that records the time and sleeps 10 ms, beside a worker that
/// either blocks or sleeps 30 ms three times. Returns the ticks and the worker's
/// (start, end) intervals.
fn pulse(blocking: bool) -> (Vec<Duration>, Vec<(Duration, Duration)>) {
    watchdog_default(move || {
        let mut event_loop = real_time_loop();
        let ticks = Rc::new(RefCell::new(Vec::new()));
        let spans = Rc::new(RefCell::new(Vec::new()));
        let (seen, worked) = (Rc::clone(&ticks), Rc::clone(&spans));
        event_loop
            .run_until_complete(async move {
                let done = Rc::new(std::cell::Cell::new(false));
                let pulse_done = Rc::clone(&done);
                let pulse = spawn(async move {
                    while !pulse_done.get() {
                        seen.borrow_mut().push(time());
                        sleep(ms(10)).await;
                    }
                });
                let worker = spawn(async move {
                    for _ in 0..3 {
                        let start = time();
                        if blocking {
                            block_for(ms(30));
                        } else {
                            sleep(ms(30)).await;
                        }
                        worked.borrow_mut().push((start, time()));
                        yield_now().await;
                    }
                    done.set(true);
                });
                worker.await.expect("the worker does not panic");
                pulse.await.expect("the pulse does not panic");
            })
            .expect("main finishes");
        (ticks.borrow().clone(), spans.borrow().clone())
    })
}

#[test]
fn the_pulse_never_ticks_while_the_worker_blocks_and_does_while_it_sleeps() {
    let (ticks, blocks) = pulse(true);
    for (start, end) in &blocks {
        assert!(
            *end - *start >= ms(30),
            "block_for really sleeps the thread"
        );
        assert!(
            !ticks.iter().any(|t| t > start && t < end),
            "a tick inside a block {start:?}..{end:?}: {ticks:?}"
        );
    }
    let (ticks, sleeps) = pulse(false);
    for (start, end) in &sleeps {
        assert!(
            ticks.iter().any(|t| t >= start && t <= end),
            "no tick while the worker slept {start:?}..{end:?}: {ticks:?}"
        );
    }
}

/// `tasks` gathered tasks that each block or sleep 10 ms; returns each task's
/// (start, end) and the total.
fn fifty(tasks: usize, blocking: bool) -> (Vec<(Duration, Duration)>, Duration) {
    watchdog_default(move || {
        let mut event_loop = real_time_loop();
        event_loop
            .run_until_complete(async move {
                let start = time();
                let work = (0..tasks).map(|_| async move {
                    let began = time();
                    if blocking {
                        block_for(ms(10));
                    } else {
                        sleep(ms(10)).await;
                    }
                    (began, time())
                });
                let spans = gather(work).await.expect("no task panics");
                (spans, time() - start)
            })
            .expect("main finishes")
    })
}

#[test]
fn blocking_tasks_add_up_and_sleeping_tasks_overlap() {
    let (_, total) = fifty(10, true);
    assert!(
        total >= ms(100),
        "ten 10 ms blocks, one after another: {total:?}"
    );
    let (spans, _) = fifty(10, false);
    let first_end = spans.iter().map(|(_, end)| *end).min().expect("ten tasks");
    assert!(
        spans.iter().all(|(began, _)| *began <= first_end),
        "every sleep began before the first one ended: {spans:?}"
    );
}
