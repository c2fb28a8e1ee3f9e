//! Exercise 4: whole timelines in virtual time, asserted exactly.
//!
//! Each test says which case it means. The figures match what CPython's asyncio gives
//! for the same programs (the book's chapter 5 walks through them turn by turn).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::common::{logged_virtual_loop, ms, shared};
use ex05_timers::{LoopTimers, block_for, sleep, time};
use oneloop_core::{gather, spawn, yield_now};
use oneloop_testkit::watchdog_default;

#[test]
fn ex4_gather_of_sleeps_ends_with_the_longest_and_keeps_argument_order() {
    watchdog_default(|| {
        // Virtual time: gather of sleeps 0.3, 0.1, 0.2 s started together by main.
        let (mut event_loop, _log) = logged_virtual_loop();
        let finished = shared::<(u64, Duration)>();
        let seen = Rc::clone(&finished);
        let (results, at) = event_loop
            .run_until_complete(async move {
                let naps = [300, 100, 200].map(|length| {
                    let seen = Rc::clone(&seen);
                    async move {
                        sleep(ms(length)).await;
                        seen.borrow_mut().push((length, time()));
                        length * 10
                    }
                });
                let results = gather(naps).await.unwrap();
                (results, time())
            })
            .unwrap();
        assert_eq!(at, ms(300), "0.3 s, not 0.6 s");
        assert_eq!(
            *finished.borrow(),
            [(100, ms(100)), (200, ms(200)), (300, ms(300))]
        );
        assert_eq!(results, [3000, 1000, 2000], "argument order");
    });
}

/// A ticker: three ticks, 0.1 s apart, each recorded after its sleep.
async fn ticker(ticks: Rc<std::cell::RefCell<Vec<Duration>>>) {
    for _ in 0..3 {
        sleep(ms(100)).await;
        ticks.borrow_mut().push(time());
    }
}

#[test]
fn ex4_a_ticker_that_has_started_before_a_block_ticks_at_the_end_of_the_block() {
    watchdog_default(|| {
        // Virtual time, the *started* case: main spawns the ticker and yields, so the
        // ticker runs its first step (its first timer is due at 0.1 s); then main
        // blocks the loop's thread for 0.35 s.
        let (mut event_loop, _log) = logged_virtual_loop();
        let ticks = shared::<Duration>();
        let seen = Rc::clone(&ticks);
        let end = event_loop
            .run_until_complete(async move {
                let ticking = spawn(ticker(seen));
                yield_now().await;
                block_for(ms(350));
                ticking.await.unwrap();
                time()
            })
            .unwrap();
        assert_eq!(*ticks.borrow(), [ms(350), ms(450), ms(550)]);
        assert_eq!(end, ms(550));
    });
}

#[test]
fn ex4_a_ticker_only_spawned_before_a_block_starts_counting_after_it() {
    watchdog_default(|| {
        // Virtual time, the *only spawned* case: main spawns the ticker and blocks for
        // 0.35 s at once; the ticker's first step (and first timer) comes after.
        let (mut event_loop, _log) = logged_virtual_loop();
        let ticks = shared::<Duration>();
        let seen = Rc::clone(&ticks);
        event_loop
            .run_until_complete(async move {
                let ticking = spawn(ticker(seen));
                block_for(ms(350));
                ticking.await.unwrap();
            })
            .unwrap();
        assert_eq!(*ticks.borrow(), [ms(450), ms(550), ms(650)]);
    });
}

#[test]
fn ex4_the_pulse_ticks_every_three_turns_behind_a_blocking_worker() {
    watchdog_default(|| {
        // Virtual time: the pulse (tick, then sleep 10 ms, while the worker runs) is
        // spawned before the worker (ten 100 ms blocking chunks, a yield after each).
        let (mut event_loop, log) = logged_virtual_loop();
        let core = Rc::clone(event_loop.core());
        let ticks = shared::<(Duration, u64)>();
        let seen = Rc::clone(&ticks);
        let worker_done = Rc::new(Cell::new(false));
        let done = Rc::clone(&worker_done);
        event_loop
            .run_until_complete(async move {
                let pulse_done = Rc::clone(&done);
                let pulse = spawn(async move {
                    while !pulse_done.get() {
                        seen.borrow_mut().push((time(), core.turn()));
                        sleep(ms(10)).await;
                    }
                });
                let worker = spawn(async move {
                    for _ in 0..10 {
                        block_for(ms(100));
                        yield_now().await;
                    }
                    done.set(true);
                });
                worker.await.unwrap();
                pulse.await.unwrap();
            })
            .unwrap();
        let ticks = ticks.borrow();
        let times: Vec<_> = ticks.iter().map(|(at, _)| *at).collect();
        assert_eq!(times, [ms(0), ms(300), ms(600), ms(900)]);
        let turns: Vec<_> = ticks.iter().map(|(_, turn)| *turn).collect();
        // The first tick comes in the pulse's first step (turn 2, before the worker's
        // first chunk); the next is two turns later, then one tick every three turns.
        assert_eq!(turns, [2, 4, 7, 10]);
        // One period, turns 5 to 7. The pulse's timer (due at 0.31 s) was not yet due
        // when turn 5 parked at 0.3 s: only the worker runs, and the clock reaches 0.4 s.
        // Turn 6 moves the timer: its callback runs after the worker and wakes the pulse.
        // Turn 7 runs the pulse's step, after the worker's next chunk: the tick is at 0.6 s.
        let (pulse, worker) = ("task 1.0", "task 2.0");
        assert_eq!(log.labels(5), [worker]);
        assert_eq!(log.labels(6), [worker, "sleep"]);
        assert_eq!(log.labels(7), [worker, pulse]);
        assert_eq!(log.turns()[5].park.timers_moved, 1);
    });
}

/// Runs `tasks` tasks under gather, each doing `work`, and returns (turns, longest
/// turn, total) on the virtual clock.
fn fifty(tasks: usize, blocking: bool) -> (u64, Duration, Duration) {
    let (mut event_loop, log) = logged_virtual_loop();
    let total = event_loop
        .run_until_complete(async move {
            let work = (0..tasks).map(|_| async move {
                if blocking {
                    block_for(ms(100));
                } else {
                    sleep(ms(100)).await;
                }
            });
            gather(work).await.unwrap();
            time()
        })
        .unwrap();
    (event_loop.turn(), log.longest(), total)
}

#[test]
fn ex4_fifty_blocking_tasks_take_the_same_turns_as_one_and_one_turn_of_five_seconds() {
    watchdog_default(|| {
        // Virtual time: N tasks under gather, each blocking the loop's thread 100 ms.
        let (one_turns, one_longest, one_total) = fifty(1, true);
        let (ten_turns, _, _) = fifty(10, true);
        let (turns, longest, total) = fifty(50, true);
        assert_eq!(turns, one_turns, "turns do not grow with the tasks");
        assert_eq!(ten_turns, one_turns);
        assert_eq!(one_longest, ms(100));
        assert_eq!(longest, Duration::from_secs(5), "all fifty in one turn");
        assert_eq!(total, Duration::from_secs(5));
        assert_eq!(one_total, ms(100));
    });
}

#[test]
fn ex4_fifty_sleeping_tasks_take_a_tenth_of_a_second() {
    watchdog_default(|| {
        // Virtual time: N tasks under gather, each sleeping 100 ms.
        let (one_turns, _, _) = fifty(1, false);
        let (turns, longest, total) = fifty(50, false);
        assert_eq!(total, ms(100), "the fifty timers run down together");
        assert_eq!(turns, one_turns);
        assert_eq!(longest, ms(100), "the longest turn is the one that waited");
        let timers = ex05_timers::virtual_time_loop().timers();
        assert_eq!(timers.time(), Duration::ZERO);
    });
}
