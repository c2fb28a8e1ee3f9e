//! Exercise 2: the select timeout, and what the timer driver does around the inner park.
//!
//! The tests through the loop also need exercise 3 (every park sweeps first): they are
//! named `ex3_`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::Waker;
use std::time::Duration;

use crate::common::{TurnLog, logged_virtual_loop, ms};
use ex05_timers::{
    Clock, CountingClock, LoopError, LoopTimers, MAXIMUM_SELECT_TIMEOUT, TimerDriver, VirtualClock,
    select_timeout, virtual_time_loop,
};
use oneloop_core::hooks::{CancelFlag, Handle, ReadyQueue};
use oneloop_core::{Driver, EventLoop, Label, ParkReport, ThreadParker};
use oneloop_testkit::watchdog_default;

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

#[test]
fn ex2_with_no_timer_the_timeout_is_what_was_asked() {
    watchdog_default(|| {
        assert_eq!(select_timeout(None, None, ms(5)), None, "wait for ever");
        assert_eq!(
            select_timeout(Some(Duration::ZERO), None, ms(5)),
            Some(Duration::ZERO),
            "something is ready"
        );
    });
}

#[test]
fn ex2_with_a_timer_the_timeout_is_the_time_left_to_its_deadline() {
    watchdog_default(|| {
        assert_eq!(select_timeout(None, Some(ms(250)), ms(100)), Some(ms(150)));
        assert_eq!(
            select_timeout(None, Some(ms(100)), ms(100)),
            Some(Duration::ZERO),
            "due now"
        );
        assert_eq!(
            select_timeout(None, Some(ms(100)), ms(400)),
            Some(Duration::ZERO),
            "a deadline in the past is clamped to zero"
        );
    });
}

#[test]
fn ex2_a_ready_handle_or_a_stop_makes_the_timeout_zero_even_with_timers() {
    watchdog_default(|| {
        assert_eq!(
            select_timeout(Some(Duration::ZERO), Some(ms(250)), ms(100)),
            Some(Duration::ZERO)
        );
        assert_eq!(
            select_timeout(Some(ms(20)), Some(ms(250)), ms(100)),
            Some(ms(20)),
            "never longer than asked"
        );
    });
}

#[test]
fn ex2_the_timeout_is_clamped_to_one_day() {
    watchdog_default(|| {
        assert_eq!(MAXIMUM_SELECT_TIMEOUT, DAY);
        let far = DAY * 30;
        assert_eq!(select_timeout(None, Some(far), ms(0)), Some(DAY));
        assert_eq!(
            select_timeout(None, Some(DAY + ms(1)), ms(1)),
            Some(DAY),
            "exactly one day left"
        );
    });
}

#[test]
fn ex3_the_loop_parks_until_the_earliest_deadline_and_the_virtual_clock_jumps_there() {
    watchdog_default(|| {
        // Virtual time: timers at 0.25 s and 0.4 s, nothing else.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        timers.call_later_named(ms(400), "second", || {});
        timers.call_later_named(ms(250), "first", || {});
        event_loop.run_once().unwrap();
        event_loop.run_once().unwrap();
        let turns = log.turns();
        assert_eq!(turns[0].park.timeout, Some(ms(250)));
        assert_eq!(turns[0].park.parked, ms(250));
        assert_eq!(turns[0].park.timers_moved, 1);
        assert_eq!(turns[0].labels, ["first"]);
        assert_eq!(turns[1].park.timeout, Some(ms(150)));
        assert_eq!(turns[1].labels, ["second"]);
        assert_eq!(timers.time(), ms(400));
    });
}

#[test]
fn ex3_a_ready_handle_makes_the_park_zero_and_the_timer_waits() {
    watchdog_default(|| {
        // Virtual time: a timer at 0.1 s and a callback already queued.
        let (mut event_loop, log) = logged_virtual_loop();
        event_loop
            .timers()
            .call_later_named(ms(100), "timer", || {});
        event_loop.call_soon_named("soon", || {});
        event_loop.run_once().unwrap();
        event_loop.run_once().unwrap();
        let turns = log.turns();
        assert_eq!(turns[0].park.timeout, Some(Duration::ZERO));
        assert_eq!(turns[0].labels, ["soon"]);
        assert_eq!(turns[0].end, Duration::ZERO);
        assert_eq!(turns[1].park.timeout, Some(ms(100)));
        assert_eq!(turns[1].labels, ["timer"]);
    });
}

/// An inner driver standing in for I/O: its first park pushes one event.
#[derive(Default)]
struct OneEvent {
    fired: bool,
    timeouts: Rc<RefCell<Vec<Option<Duration>>>>,
}

impl Driver for OneEvent {
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        self.timeouts.borrow_mut().push(timeout);
        let mut io_events = 0;
        if !self.fired {
            self.fired = true;
            ready.push(Handle::once(
                Label::from("io"),
                Box::new(|| {}),
                CancelFlag::new(),
            ));
            io_events = 1;
        }
        ParkReport {
            timeout,
            io_events,
            ..ParkReport::default()
        }
    }
}

#[test]
fn ex3_inner_events_come_before_due_timers_and_the_inner_driver_gets_a_zero_timeout() {
    watchdog_default(|| {
        // Virtual time: a timer at 0.1 s over an inner driver with one pending event.
        let inner = OneEvent::default();
        let timeouts = Rc::clone(&inner.timeouts);
        let mut event_loop = EventLoop::with_driver(TimerDriver::virtual_time(inner));
        let log = TurnLog::on(&event_loop);
        event_loop
            .timers()
            .call_later_named(ms(100), "timer", || {});
        event_loop.run_once().unwrap();
        assert_eq!(log.labels(1), ["io", "timer"]);
        let park = log.turns()[0].park;
        assert_eq!(park.io_events, 1, "the inner report is kept");
        assert_eq!(park.timers_moved, 1);
        assert_eq!(park.timeout, Some(ms(100)));
        assert_eq!(*timeouts.borrow(), [Some(Duration::ZERO)]);
    });
}

#[test]
fn ex3_parking_for_ever_in_virtual_time_is_stalled_not_a_hang() {
    watchdog_default(|| {
        // Virtual time: main waits on a waker it keeps itself; nothing else exists.
        let mut event_loop = virtual_time_loop();
        let kept: Rc<RefCell<Option<Waker>>> = Rc::new(RefCell::new(None));
        let slot = Rc::clone(&kept);
        let polls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&polls);
        let outcome = event_loop.run_until_complete(std::future::poll_fn(move |cx| {
            counted.set(counted.get() + 1);
            *slot.borrow_mut() = Some(cx.waker().clone());
            std::task::Poll::<()>::Pending
        }));
        assert_eq!(outcome, Err(LoopError::Stalled));
        assert_eq!(polls.get(), 1);
        assert!(
            kept.borrow().is_some(),
            "a waker was held, and still no hang"
        );
    });
}

#[test]
fn ex3_a_timer_driver_over_the_real_clock_lets_held_wakers_wait() {
    watchdog_default(|| {
        // Real clock: the timer driver says what its inner driver says.
        let driver = TimerDriver::new(ThreadParker);
        assert!(driver.external_wakes());
        let simulated = TimerDriver::virtual_time(ThreadParker);
        assert!(!simulated.external_wakes());
        assert_eq!(simulated.registrations(), 0);
        simulated.timers().call_later(ms(5), || {});
        assert_eq!(simulated.registrations(), 1);
    });
}

#[test]
fn ex3_a_snapshot_shows_the_head_of_the_timer_heap_earliest_first() {
    watchdog_default(|| {
        // Virtual time: three timers, one cancelled, shown before any turn.
        let event_loop = virtual_time_loop();
        let timers = event_loop.timers();
        timers.call_later_named(ms(300), "late", || {});
        timers.call_later_named(ms(100), "early", || {}).cancel();
        timers.call_later_named(ms(200), "middle", || {});
        let snapshot = event_loop.snapshot();
        assert_eq!(snapshot.layers[0].name, "timers");
        assert_eq!(
            snapshot.layers[0].lines,
            [
                "when=0.100 early cancelled",
                "when=0.200 middle",
                "when=0.300 late"
            ]
        );
    });
}

#[test]
fn ex2_an_asked_timeout_longer_than_the_time_left_gives_way_to_the_deadline() {
    watchdog_default(|| {
        // A layer above may ask for a timeout of its own: the earlier of the two wins.
        assert_eq!(
            select_timeout(Some(ms(500)), Some(ms(250)), ms(100)),
            Some(ms(150))
        );
        assert_eq!(
            select_timeout(Some(DAY * 2), Some(DAY * 30), ms(0)),
            Some(DAY),
            "and never more than a day"
        );
    });
}

#[test]
fn ex3_a_timer_one_resolution_after_now_waits_for_the_next_park() {
    watchdog_default(|| {
        // Virtual time (resolution 1 ns): timers at 0.1 s and at 0.1 s + 1 ns. The clock
        // jumps to 0.1 s; due means `when < now + resolution`, so only the first moves.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let one_ns = Duration::from_nanos(1);
        timers.call_at_named(ms(100) + one_ns, "a nanosecond later", || {});
        timers.call_at_named(ms(100), "at 0.1 s", || {});
        event_loop.run_once().unwrap();
        assert_eq!(log.labels(1), ["at 0.1 s"]);
        assert_eq!(timers.time(), ms(100));
        event_loop.run_once().unwrap();
        assert_eq!(log.labels(2), ["a nanosecond later"]);
        assert_eq!(log.turns()[1].park.timeout, Some(one_ns));
        assert_eq!(timers.time(), ms(100) + one_ns);
    });
}

#[test]
fn ex3_a_turn_reads_the_clock_only_when_a_timer_needs_the_time() {
    watchdog_default(|| {
        // Virtual time, through a clock that counts its reads.
        let clock = Rc::new(CountingClock::new(VirtualClock::new()));
        let shared: Rc<dyn Clock> = clock.clone();
        let mut event_loop = EventLoop::with_driver(TimerDriver::with_clock(ThreadParker, shared));
        // Something ready and no timer: a zero timeout, nothing to move, no read.
        event_loop.call_soon_named("soon", || {});
        event_loop.run_once().unwrap();
        assert_eq!(clock.reads(), 0, "a turn with no timer reads no clock");
        // Something ready and a timer: the timeout stays zero unread, and the due
        // check reads the clock once.
        event_loop.timers().call_at_named(ms(500), "later", || {});
        event_loop.call_soon_named("soon", || {});
        event_loop.run_once().unwrap();
        assert_eq!(clock.reads(), 1, "only the due check needs the time");
    });
}

#[test]
fn ex3_a_timer_at_the_last_nanosecond_fires_once_the_clock_gets_there() {
    watchdog_default(|| {
        // Virtual time, moved to 1 µs before the last nanosecond a deadline can hold.
        // A `call_at(Duration::MAX)` is kept as that nanosecond, and comes due there.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let last = Duration::from_nanos(u64::MAX);
        timers.block_for(last - Duration::from_micros(1));
        timers.call_at_named(Duration::MAX, "max", || {});
        timers.call_at_named(last, "last", || {});
        event_loop.run_once().unwrap();
        assert_eq!(timers.time(), last);
        assert_eq!(log.labels(1), ["max", "last"]);
        assert_eq!(timers.scheduled(), 0);
    });
}

#[test]
fn ex3_call_later_with_a_delay_past_the_clocks_range_saturates() {
    watchdog_default(|| {
        // Virtual time at 5 ms: `time() + Duration::MAX` does not fit a `Duration`.
        let event_loop = virtual_time_loop();
        let timers = event_loop.timers();
        timers.block_for(ms(5));
        let handle = timers.call_later(Duration::MAX, || {});
        assert_eq!(handle.when(), Duration::from_nanos(u64::MAX));
        assert_eq!(timers.earliest(), Some(Duration::from_nanos(u64::MAX)));
    });
}

#[test]
fn ex3_a_virtual_block_past_the_clocks_range_stops_at_its_end_and_timers_still_come_due() {
    watchdog_default(|| {
        // Virtual time at 1 ms, then a block of `Duration::MAX`: the clock stops at the
        // largest `Duration` instead of overflowing, and the next park moves the timer.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        timers.block_for(ms(1));
        timers.call_at_named(DAY, "tomorrow", || {});
        timers.block_for(Duration::MAX);
        assert_eq!(timers.time(), Duration::MAX);
        event_loop.run_once().unwrap();
        assert_eq!(log.labels(1), ["tomorrow"]);
    });
}
