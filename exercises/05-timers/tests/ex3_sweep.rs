//! Exercise 3: lazy cancel and the sweep at the start of each turn.
//!
//! The rule, from step 1 of asyncio's `_run_once`: when more than 100 timers are in the
//! heap and more than half of them are cancelled (both strict), rebuild the heap without
//! them; otherwise pop cancelled timers from the head only.

use std::cell::Cell;
use std::rc::Rc;

use crate::common::{logged_virtual_loop, ms};
use ex05_timers::{LoopTimers, TimerHandle, TimerHeap};
use oneloop_core::Label;
use oneloop_testkit::watchdog_default;

/// A heap of `total` timers at 1, 2, 3, ... ms, with their handles.
fn heap_of(total: u64) -> (TimerHeap, Vec<TimerHandle>) {
    let mut heap = TimerHeap::new();
    let handles = (1..=total)
        .map(|n| heap.push(ms(n), Label::from("t"), Box::new(|| {})))
        .collect();
    (heap, handles)
}

/// Cancels the timers at the back of the heap (never the head), `count` of them.
fn cancel_back(handles: &[TimerHandle], count: usize) {
    for handle in handles.iter().rev().take(count) {
        handle.cancel();
    }
}

#[test]
fn ex3_a_cancel_leaves_the_timer_in_the_heap_and_counts_it() {
    watchdog_default(|| {
        let (heap, handles) = heap_of(5);
        handles[2].cancel();
        handles[2].cancel();
        assert_eq!(heap.len(), 5, "lazy deletion");
        assert_eq!(heap.cancelled(), 1, "a second cancel counts nothing");
        assert!(handles[2].is_scheduled());
    });
}

#[test]
fn ex3_cancelled_timers_at_the_head_are_popped() {
    watchdog_default(|| {
        let (mut heap, handles) = heap_of(10);
        for handle in &handles[..3] {
            handle.cancel();
        }
        let gone = heap.sweep();
        assert_eq!(gone.len(), 3);
        assert_eq!(heap.len(), 7);
        assert_eq!(heap.cancelled(), 0);
        assert_eq!(heap.earliest(), Some(ms(4)));
        assert!(handles[..3].iter().all(|handle| !handle.is_scheduled()));
    });
}

#[test]
fn ex3_cancelled_timers_in_the_middle_stay_until_they_reach_the_head() {
    watchdog_default(|| {
        let (mut heap, handles) = heap_of(10);
        handles[4].cancel();
        handles[5].cancel();
        assert!(heap.sweep().is_empty(), "the head is live: nothing moves");
        assert_eq!((heap.len(), heap.cancelled()), (10, 2));
        for _ in 0..4 {
            heap.pop();
        }
        assert_eq!(heap.sweep().len(), 2, "now they are at the head");
        assert_eq!((heap.len(), heap.cancelled()), (4, 0));
        assert_eq!(heap.earliest(), Some(ms(7)));
    });
}

#[test]
fn ex3_one_hundred_timers_are_never_rebuilt() {
    watchdog_default(|| {
        // 100 timers, 60 cancelled (behind a live head): not more than 100, no rebuild.
        let (mut heap, handles) = heap_of(100);
        cancel_back(&handles, 60);
        assert!(heap.sweep().is_empty());
        assert_eq!((heap.len(), heap.cancelled()), (100, 60));
    });
}

#[test]
fn ex3_one_hundred_and_one_timers_mostly_cancelled_are_rebuilt() {
    watchdog_default(|| {
        // 101 timers, 51 cancelled: more than 100 and more than half.
        let (mut heap, handles) = heap_of(101);
        cancel_back(&handles, 51);
        let gone = heap.sweep();
        assert_eq!(gone.len(), 51);
        assert!(gone.iter().all(|timer| timer.is_cancelled()));
        assert_eq!((heap.len(), heap.cancelled()), (50, 0));
        assert!(handles.iter().rev().take(51).all(|h| !h.is_scheduled()));
        let order: Vec<_> = std::iter::from_fn(|| heap.pop())
            .map(|timer| timer.when())
            .collect();
        assert_eq!(order, (1..=50).map(ms).collect::<Vec<_>>(), "still a heap");
    });
}

#[test]
fn ex3_exactly_half_cancelled_is_not_enough() {
    watchdog_default(|| {
        // 102 timers, 51 cancelled: exactly half, so only the head is looked at.
        let (mut heap, handles) = heap_of(102);
        cancel_back(&handles, 51);
        assert!(heap.sweep().is_empty());
        assert_eq!((heap.len(), heap.cancelled()), (102, 51));
        // One more cancel makes it more than half.
        handles[50].cancel();
        assert_eq!(heap.sweep().len(), 52);
        assert_eq!((heap.len(), heap.cancelled()), (50, 0));
    });
}

#[test]
fn ex3_a_rebuild_also_removes_cancelled_timers_at_the_head() {
    watchdog_default(|| {
        let (mut heap, handles) = heap_of(120);
        for handle in handles
            .iter()
            .step_by(2)
            .chain(handles.iter().skip(1).take(10))
        {
            handle.cancel();
        }
        // Every other timer from the first, and the odd ones among the first eleven.
        assert_eq!(heap.cancelled(), 65);
        assert_eq!(heap.sweep().len(), 65);
        assert_eq!(heap.len(), 55);
        assert_eq!(heap.earliest(), Some(ms(12)));
    });
}

#[test]
fn ex3_a_cancelled_timer_never_runs_and_the_loop_sweeps_at_the_start_of_a_turn() {
    watchdog_default(|| {
        // Virtual time: 150 timers at 1..=150 ms from the loop, 120 cancelled at once.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let ran = Rc::new(Cell::new(0));
        let handles: Vec<_> = (1..=150)
            .map(|n| {
                let ran = Rc::clone(&ran);
                timers.call_later(ms(n), move || ran.set(ran.get() + 1))
            })
            .collect();
        for handle in handles.iter().filter(|h| h.when() > ms(30)) {
            handle.cancel();
        }
        assert_eq!((timers.scheduled(), timers.cancelled()), (150, 120));
        event_loop.run_once().unwrap();
        assert_eq!(timers.cancelled(), 0, "the first turn rebuilt the heap");
        assert_eq!(timers.scheduled(), 29, "30 live, the first one ran");
        let stopper = Rc::clone(event_loop.core());
        timers.call_later_named(ms(100), "stop", move || stopper.stop());
        event_loop.run_forever().unwrap();
        assert_eq!(ran.get(), 30);
        assert_eq!(log.turns()[0].park.timers_moved, 1);
    });
}

#[test]
fn ex3_a_timer_cancelled_after_it_came_due_does_not_run() {
    watchdog_default(|| {
        // Virtual time: two timers at 0.1 s; the first cancels the second, already queued.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let ran = Rc::new(Cell::new(false));
        let second_ran = Rc::clone(&ran);
        let slot: Rc<Cell<Option<TimerHandle>>> = Rc::new(Cell::new(None));
        let target = Rc::clone(&slot);
        timers.call_later_named(ms(100), "first", move || {
            if let Some(second) = target.take() {
                second.cancel();
            }
        });
        let second = timers.call_later_named(ms(100), "second", move || second_ran.set(true));
        slot.set(Some(second.clone()));
        event_loop.run_once().unwrap();
        assert_eq!(log.turns()[0].park.timers_moved, 2);
        assert_eq!(log.labels(1), ["first"], "the cancelled handle is skipped");
        assert!(!ran.get());
        assert!(second.is_cancelled());
        assert_eq!(timers.cancelled(), 0, "it had left the heap: not counted");
    });
}

#[test]
fn ex3_a_rebuild_keeps_tied_timers_in_scheduling_order() {
    watchdog_default(|| {
        // 150 timers at one deadline, labels built at run time; 90 cancelled: rebuilt.
        let mut heap = TimerHeap::new();
        let handles: Vec<_> = (0..150)
            .map(|n| heap.push(ms(100), Label::from(format!("t{n}")), Box::new(|| {})))
            .collect();
        // Every timer but those numbered 0 and 1 modulo 5.
        for (n, handle) in handles.iter().enumerate() {
            if n % 5 > 1 {
                handle.cancel();
            }
        }
        assert_eq!(heap.cancelled(), 90);
        assert_eq!(
            heap.sweep().len(),
            90,
            "more than 100, more than half: rebuilt"
        );
        let order: Vec<String> = std::iter::from_fn(|| heap.pop())
            .map(|timer| timer.label().to_string())
            .collect();
        let expected: Vec<String> = (0..150)
            .filter(|n| n % 5 <= 1)
            .map(|n| format!("t{n}"))
            .collect();
        assert_eq!(order, expected);
    });
}

#[test]
fn ex3_cancelling_a_due_or_finished_timer_again_counts_nothing() {
    watchdog_default(|| {
        // Virtual time: two timers at 0.1 s; the first cancels the second twice while
        // its handle is queued. After the turn, both handles are cancelled once more.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let second_ran = Rc::new(Cell::new(false));
        let ran = Rc::clone(&second_ran);
        let slot: Rc<Cell<Option<TimerHandle>>> = Rc::new(Cell::new(None));
        let target = Rc::clone(&slot);
        let first = timers.call_later_named(ms(100), "first", move || {
            if let Some(second) = target.take() {
                second.cancel();
                second.cancel();
            }
        });
        let second = timers.call_later_named(ms(100), "second", move || ran.set(true));
        slot.set(Some(second.clone()));
        event_loop.run_once().unwrap();
        assert_eq!(log.labels(1), ["first"]);
        assert!(!second_ran.get());
        assert_eq!(
            timers.cancelled(),
            0,
            "neither cancel counted: it had left the heap"
        );
        first.cancel();
        second.cancel();
        assert!(first.is_cancelled() && second.is_cancelled());
        assert!(!first.is_scheduled() && !second.is_scheduled());
        assert_eq!((timers.scheduled(), timers.cancelled()), (0, 0));
    });
}
