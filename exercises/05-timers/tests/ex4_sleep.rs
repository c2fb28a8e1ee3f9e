//! Exercise 4: `sleep` — a one-shot wakeup plus a timer, cancelled on drop — and
//! `timeout` built on it.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use crate::common::{TurnLog, logged_virtual_loop, ms, shared};
use ex05_timers::{LoopTimers, TimedOut, TimerDriver, sleep, time, timeout};
use oneloop_core::hooks::{ReadyQueue, with_current};
use oneloop_core::{Driver, EventLoop, ParkReport, spawn, yield_now};
use oneloop_testkit::{CloneCountingWaker, CountingWaker, DropFlag, watchdog_default};

#[test]
fn ex4_sleep_wakes_the_task_after_its_delay() {
    watchdog_default(|| {
        // Virtual time: main sleeps 0.25 s, alone.
        let (mut event_loop, log) = logged_virtual_loop();
        let woke = event_loop
            .run_until_complete(async {
                sleep(ms(250)).await;
                time()
            })
            .unwrap();
        assert_eq!(woke, ms(250));
        // Two hops: the timer's callback in one turn, main's step in the next.
        assert_eq!(log.labels(1), ["main"]);
        assert_eq!(log.labels(2), ["sleep"]);
        assert_eq!(log.labels(3), ["main"]);
        // Then run_until_complete's stop callback, one turn after main, as in CPython.
        assert_eq!(log.labels(4), ["_run_until_complete_cb"]);
        assert_eq!(event_loop.turn(), 4);
    });
}

#[test]
fn ex4_the_first_poll_registers_one_timer_and_later_polls_none() {
    watchdog_default(|| {
        // Virtual time: a sleep polled by hand three times inside main.
        let (mut event_loop, _log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let counts = event_loop
            .run_until_complete(async move {
                let mut nap = sleep(ms(100));
                let mut counts = Vec::new();
                for _ in 0..3 {
                    let pending = std::future::poll_fn(|cx| {
                        Poll::Ready(Pin::new(&mut nap).poll(cx).is_pending())
                    })
                    .await;
                    counts.push((pending, timers.scheduled()));
                }
                nap.await;
                counts
            })
            .unwrap();
        assert_eq!(counts, [(true, 1), (true, 1), (true, 1)]);
    });
}

#[test]
fn ex4_a_sleep_polled_under_a_new_waker_wakes_that_one() {
    watchdog_default(|| {
        // Virtual time: main polls a 0.1 s sleep once under a waker that is not its own
        // (as a select or a future moved between tasks would), then awaits it.
        let (mut event_loop, _log) = logged_virtual_loop();
        let stale = Rc::new(CountingWaker::new());
        let old = Rc::clone(&stale);
        let woke = event_loop
            .run_until_complete(async move {
                let mut nap = sleep(ms(100));
                let first = old.with_context(|cx| Pin::new(&mut nap).poll(cx));
                assert!(first.is_pending());
                // The timer exists now; this poll must move the wakeup to main's waker.
                nap.await;
                time()
            })
            .expect("main is woken by the timer, not left stalled");
        assert_eq!(woke, ms(100));
        assert_eq!(stale.wakes(), 0, "the stale waker is never woken");
        assert_eq!(stale.live_wakers(), 0, "and no longer held");
    });
}

#[test]
fn ex4_sleep_zero_behaves_as_yield_now() {
    watchdog_default(|| {
        // Virtual time: two tasks taking turns, one with sleep(ZERO), one with yield_now.
        let (mut event_loop, log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let order = shared::<&str>();
        let (a, b) = (Rc::clone(&order), Rc::clone(&order));
        event_loop
            .run_until_complete(async move {
                let first = spawn(async move {
                    for _ in 0..3 {
                        a.borrow_mut().push("A");
                        sleep(Duration::ZERO).await;
                    }
                });
                let second = spawn(async move {
                    for _ in 0..3 {
                        b.borrow_mut().push("B");
                        yield_now().await;
                    }
                });
                assert_eq!(timers.scheduled(), 0);
                first.await.unwrap();
                second.await.unwrap();
                assert_eq!(timers.scheduled(), 0, "sleep(ZERO) made no timer");
            })
            .unwrap();
        assert_eq!(*order.borrow(), ["A", "B", "A", "B", "A", "B"]);
        assert_eq!(event_loop.timers().time(), Duration::ZERO);
        assert!(log.turns().iter().all(|turn| turn.park.timers_moved == 0));
    });
}

#[test]
fn ex4_a_sleep_polled_where_no_loop_runs_panics_instead_of_waiting_for_ever() {
    watchdog_default(|| {
        // With no loop there is no clock and no heap: nothing could ever wake this
        // sleep. Its first poll panics (see `sleep`'s docs) rather than stay pending.
        let counter = CountingWaker::new();
        let mut nap = Box::pin(sleep(ms(10)));
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            counter.with_context(|cx| nap.as_mut().poll(cx))
        }));
        assert!(polled.is_err(), "the first poll panics");
        assert_eq!(counter.wakes(), 0);
    });
}

#[test]
fn ex4_dropping_a_sleep_cancels_its_timer() {
    watchdog_default(|| {
        // Virtual time: a sleep polled once, then dropped before its deadline.
        let (mut event_loop, _log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let inside = Rc::clone(&timers);
        let timer = event_loop
            .run_until_complete(async move {
                let mut nap = sleep(ms(500));
                std::future::poll_fn(|cx| {
                    assert!(Pin::new(&mut nap).poll(cx).is_pending());
                    Poll::Ready(())
                })
                .await;
                let timer = nap.timer().expect("the first poll made a timer").clone();
                assert_eq!(timer.when(), ms(500));
                assert_eq!((inside.scheduled(), inside.cancelled()), (1, 0));
                drop(nap);
                assert_eq!((inside.scheduled(), inside.cancelled()), (1, 1));
                timer
            })
            .unwrap();
        assert!(timer.is_cancelled());
        assert_eq!(timers.live(), 0);
        assert_eq!(time_now(&timers), Duration::ZERO, "no turn waited for it");
    });
}

fn time_now(timers: &ex05_timers::Timers) -> Duration {
    timers.time()
}

#[test]
fn ex4_a_sleep_dropped_inside_a_timer_callback_cancels_without_a_borrow_error() {
    watchdog_default(|| {
        // Virtual time: main parks a polled 1 s sleep in a shared slot; a timer callback
        // at 0.1 s drops it, which cancels its timer from inside a running handle.
        let (mut event_loop, _log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let slot: Rc<RefCell<Option<ex05_timers::Sleep>>> = Rc::new(RefCell::new(None));
        let held = Rc::clone(&slot);
        let outcome = event_loop
            .run_until_complete(async move {
                let mut nap = sleep(ms(1000));
                std::future::poll_fn(|cx| {
                    let _ = Pin::new(&mut nap).poll(cx);
                    Poll::Ready(())
                })
                .await;
                *held.borrow_mut() = Some(nap);
                let dropper = Rc::clone(&held);
                let counted = Rc::new(Cell::new(None));
                let count = Rc::clone(&counted);
                ex05_timers::call_later(ms(100), move || {
                    let nap = dropper.borrow_mut().take();
                    drop(nap);
                    count.set(Some(ex05_timers::Timers::current().unwrap().cancelled()));
                });
                sleep(ms(200)).await;
                // By now the cancelled timer reached the head and a sweep popped it.
                let timers = ex05_timers::Timers::current().unwrap();
                (time(), counted.get(), timers.scheduled())
            })
            .unwrap();
        assert_eq!(outcome, (ms(200), Some(1), 0));
        assert!(slot.borrow().is_none());
        assert_eq!(timers.live(), 0);
    });
}

#[test]
fn ex4_timeout_returns_the_output_when_the_future_is_first() {
    watchdog_default(|| {
        // Virtual time: a 0.1 s sleep under a 0.3 s limit.
        let (mut event_loop, _log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let (output, at) = event_loop
            .run_until_complete(async {
                let output = timeout(ms(300), async {
                    sleep(ms(100)).await;
                    7
                })
                .await;
                (output, time())
            })
            .unwrap();
        assert_eq!(output, Ok(7));
        assert_eq!(at, ms(100));
        assert_eq!(timers.live(), 0, "the limit's timer was cancelled");
    });
}

#[test]
fn ex4_a_zero_timeout_gives_the_inner_future_one_poll_only() {
    watchdog_default(|| {
        // Virtual time: the inner future yields once, then would finish. asyncio's
        // `async with asyncio.timeout(0)` lets it run to that first yield and no further.
        let (mut event_loop, _log) = logged_virtual_loop();
        let steps = shared::<&str>();
        let seen = Rc::clone(&steps);
        let outcome = event_loop
            .run_until_complete(async move {
                timeout(Duration::ZERO, async move {
                    seen.borrow_mut().push("started");
                    yield_now().await;
                    seen.borrow_mut().push("resumed");
                    "done"
                })
                .await
            })
            .unwrap();
        assert_eq!(
            outcome,
            Err(TimedOut {
                after: Duration::ZERO
            })
        );
        assert_eq!(*steps.borrow(), ["started"]);
    });
}

#[test]
fn ex4_timeout_drops_the_inner_future_and_reports_timed_out() {
    watchdog_default(|| {
        // Virtual time: a 1 s sleep under a 0.3 s limit.
        let (mut event_loop, _log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let flag = DropFlag::new();
        let guard = flag.guard();
        let dropped_when = Rc::new(Cell::new(None));
        let seen = Rc::clone(&dropped_when);
        let check = flag.clone();
        let (outcome, at) = event_loop
            .run_until_complete(async move {
                let outcome = timeout(ms(300), async move {
                    let _guard = guard;
                    sleep(ms(1000)).await;
                    "too late"
                })
                .await;
                seen.set(Some(check.dropped()));
                (outcome, time())
            })
            .unwrap();
        assert_eq!(outcome, Err(TimedOut { after: ms(300) }));
        assert_eq!(at, ms(300));
        assert_eq!(
            dropped_when.get(),
            Some(true),
            "dropped before timeout returned"
        );
        assert_eq!(timers.live(), 0, "the inner sleep's timer was cancelled");
        assert_eq!(
            TimedOut { after: ms(300) }.to_string(),
            "timed out after 0.300 seconds"
        );
    });
}

#[test]
fn ex4_a_sleep_of_duration_max_waits_without_overflow_and_a_timeout_ends_it() {
    watchdog_default(|| {
        // Virtual time: main blocks 1 ms, then sleeps `Duration::MAX` under a 10 ms limit.
        // `time() + Duration::MAX` does not fit a `Duration`: the deadline saturates.
        let (mut event_loop, _log) = logged_virtual_loop();
        let timers = event_loop.timers();
        let (outcome, at) = event_loop
            .run_until_complete(async {
                ex05_timers::block_for(ms(1));
                let outcome = timeout(ms(10), sleep(Duration::MAX)).await;
                (outcome, time())
            })
            .unwrap();
        assert_eq!(outcome, Err(TimedOut { after: ms(10) }));
        assert_eq!(at, ms(11));
        assert_eq!(timers.live(), 0, "the long sleep's timer was cancelled");
    });
}

#[test]
fn ex4_polling_a_sleep_again_under_the_same_waker_keeps_the_waker_it_holds() {
    watchdog_default(|| {
        // Virtual time: main polls a 0.1 s sleep three times under one outside waker,
        // then awaits it. The timer clones that waker once; `will_wake` spares the rest.
        let (mut event_loop, _log) = logged_virtual_loop();
        let outside = Rc::new(CloneCountingWaker::new());
        let counter = Rc::clone(&outside);
        let clones = event_loop
            .run_until_complete(async move {
                let mut nap = sleep(ms(100));
                for _ in 0..3 {
                    let poll = counter.with_context(|cx| Pin::new(&mut nap).poll(cx));
                    assert!(poll.is_pending());
                }
                let clones = counter.clones();
                nap.await;
                clones
            })
            .unwrap();
        assert_eq!(clones, 1, "one clone when the timer was made, none after");
        assert_eq!(outside.wakes(), 0);
        assert_eq!(outside.live_wakers(), 0, "main's waker replaced it");
    });
}

/// An inner driver standing in for the I/O driver: its first park calls `hook`, user
/// code, as epoll's poll calls the wakers of the descriptors that became ready.
struct CallsAHookInPark {
    hook: Option<Box<dyn FnOnce()>>,
}

impl Driver for CallsAHookInPark {
    fn park(&mut self, timeout: Option<Duration>, _ready: &ReadyQueue) -> ParkReport {
        if let Some(hook) = self.hook.take() {
            hook();
        }
        ParkReport {
            timeout,
            ..ParkReport::default()
        }
    }

    fn registrations(&self) -> usize {
        usize::from(self.hook.is_some())
    }

    fn external_wakes(&self) -> bool {
        false
    }
}

#[test]
fn ex4_a_timer_armed_inside_the_inner_park_of_an_empty_heap_runs_in_that_turn() {
    watchdog_default(|| {
        // Virtual time, no timer in the heap: the inner driver's park calls a hook that
        // arms a zero-delay timer, as a waker called inside epoll's poll may. The timer
        // park must look at the heap again after the inner park and move that timer.
        let turns = shared::<(&str, u64)>();
        let seen = Rc::clone(&turns);
        let hook = move || {
            let turn = || with_current(|core| core.turn()).expect("inside the loop");
            seen.borrow_mut().push(("armed", turn()));
            ex05_timers::call_later(Duration::ZERO, move || {
                seen.borrow_mut().push(("ran", turn()));
            });
        };
        let inner = CallsAHookInPark {
            hook: Some(Box::new(hook)),
        };
        let mut event_loop = EventLoop::with_driver(TimerDriver::virtual_time(inner));
        let log = TurnLog::on(&event_loop);
        let timers = event_loop.timers();
        assert_eq!(timers.scheduled(), 0, "the heap is empty before the park");
        event_loop.run_once().unwrap();
        assert_eq!(
            *turns.borrow(),
            [("armed", 1), ("ran", 1)],
            "the park that armed the timer moved it: its callback ran in that turn"
        );
        assert_eq!(log.turns()[0].park.timers_moved, 1);
        assert_eq!(timers.live(), 0);
        assert_eq!(timers.time(), Duration::ZERO);
    });
}
