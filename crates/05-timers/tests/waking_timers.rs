//! A due sleep's timer is its own handle: the ready queue holds the timer's entry, and
//! the loop reads the entry's cancel flag before it runs the handle. A timer cancelled
//! after it came due (its handle already queued) is skipped, and every later sleep due
//! in the same turn still wakes its own task, in its own turn. A cancel of a timer that
//! already fired reaches nothing of a later sleep's.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use oneloop_core::{spawn, yield_now};
use oneloop_testkit::watchdog_default;
use oneloop_timers::{LoopTimers, Sleep, sleep, time, virtual_time_loop};

#[test]
fn a_sleep_cancelled_after_it_came_due_leaves_the_later_sleeps_of_its_turn_on_time() {
    let (started, woken) = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let timers = event_loop.core().timers();
        let woken = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&woken);
        let started = time_of(&timers);
        event_loop
            .run_until_complete(async move {
                let second = Duration::from_secs(1);
                let doomed: Rc<RefCell<Option<Pin<Box<Sleep>>>>> =
                    Rc::new(RefCell::new(Some(Box::pin(sleep(second)))));
                // First in order among timers due at one second: its callback runs
                // first in that turn and drops the doomed sleep, whose handle is queued.
                let dropper = Rc::clone(&doomed);
                timers.call_later(second, move || drop(dropper.borrow_mut().take()));
                // The doomed sleep and two more, all polled one turn later, when the
                // virtual clock has not moved: the same deadline, later in order.
                let _doomed_task = spawn(async move {
                    poll_fn(|cx| match doomed.borrow_mut().as_mut() {
                        Some(sleep) => sleep.as_mut().poll(cx),
                        None => Poll::Ready(()),
                    })
                    .await;
                    unreachable!("nothing wakes a task whose sleep was dropped");
                });
                let later: Vec<_> = ["second", "third"]
                    .into_iter()
                    .map(|name| {
                        let seen = Rc::clone(&seen);
                        spawn(async move {
                            sleep(second).await;
                            seen.borrow_mut().push((name, time()));
                        })
                    })
                    .collect();
                for task in later {
                    task.await.expect("no panic");
                }
            })
            .expect("main finishes");
        (started, woken.borrow().clone())
    });
    let one = Duration::from_secs(1);
    assert_eq!(
        woken,
        [("second", started + one), ("third", started + one)],
        "each later sleep woke its own task, at its deadline"
    );
}

#[test]
fn cancelling_a_fired_sleeps_timer_leaves_the_next_sleep_alone() {
    let (woke_at, fired) = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let timers = event_loop.core().timers();
        event_loop
            .run_until_complete(async move {
                let ten = Duration::from_millis(10);
                let mut first = Box::pin(sleep(ten));
                // One poll registers the timer, so its handle can be kept.
                poll_fn(|cx| {
                    let _ = first.as_mut().poll(cx);
                    Poll::Ready(())
                })
                .await;
                let stale = first.timer().expect("the first poll registered it").clone();
                first.as_mut().await;
                let fired = stale.has_fired();
                // While the next sleep waits, the fired timer is cancelled.
                timers.call_later(Duration::from_millis(5), move || stale.cancel());
                sleep(ten).await;
                (time(), fired)
            })
            .expect("the second sleep wakes its task")
    });
    assert!(fired, "the first sleep's timer fired");
    assert_eq!(woke_at, Duration::from_millis(20));
}

fn time_of(timers: &oneloop_timers::Timers) -> Duration {
    timers.time()
}

/// Three sleeps that come due in one turn after a burst fired in the turn before. A
/// cancel of the middle one while its handle is queued skips that handle only.
#[test]
fn a_cancel_while_queued_reaches_only_its_own_handle_after_a_burst() {
    let woken = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let timers = event_loop.core().timers();
        event_loop
            .run_until_complete(async move {
                let ten = Duration::from_millis(10);
                // A burst: eight sleeps due in one turn.
                let burst: Vec<_> = (0..8).map(|_| spawn(sleep(ten))).collect();
                for task in burst {
                    task.await.expect("no panic");
                }
                // Then three due together at 20 ms: a callback first in order drops the
                // middle sleep while its handle is queued.
                let doomed: Rc<RefCell<Option<Pin<Box<Sleep>>>>> =
                    Rc::new(RefCell::new(Some(Box::pin(sleep(ten)))));
                let dropper = Rc::clone(&doomed);
                timers.call_later(ten, move || drop(dropper.borrow_mut().take()));
                let first = spawn(async move {
                    sleep(ten).await;
                    time()
                });
                let _doomed_task = spawn(async move {
                    poll_fn(|cx| match doomed.borrow_mut().as_mut() {
                        Some(sleep) => sleep.as_mut().poll(cx),
                        None => Poll::Ready(()),
                    })
                    .await;
                    unreachable!("nothing wakes a task whose sleep was dropped");
                });
                let last = spawn(async move {
                    sleep(ten).await;
                    time()
                });
                (
                    first.await.expect("no panic"),
                    last.await.expect("no panic"),
                )
            })
            .expect("the sleeps around the cancelled one wake their tasks")
    });
    let twenty = Duration::from_millis(20);
    assert_eq!(woken, (twenty, twenty));
}

thread_local! {
    /// A sleep that its own wake drops (a waker cannot hold a `!Send` sleep itself).
    static DROPPED_BY_ITS_WAKE: RefCell<Option<Pin<Box<Sleep>>>> = const { RefCell::new(None) };
}

/// A waker that drops the thread's doomed sleep, then wakes the task it stands for.
struct DropsTheSleep {
    task: Waker,
}

impl Wake for DropsTheSleep {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let sleep = DROPPED_BY_ITS_WAKE.with(|slot| slot.borrow_mut().take());
        drop(sleep);
        self.task.wake_by_ref();
    }
}

#[test]
fn a_sleep_dropped_by_its_own_timers_wake_leaves_the_next_sleep_on_time() {
    let (woke_at, cancelled, next_at) = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let timers = event_loop.core().timers();
        event_loop
            .run_until_complete(async move {
                let ten = Duration::from_millis(10);
                DROPPED_BY_ITS_WAKE.with(|slot| *slot.borrow_mut() = Some(Box::pin(sleep(ten))));
                // Polled with a waker that drops the sleep when the timer fires it.
                poll_fn(|cx| {
                    let waker = Waker::from(Arc::new(DropsTheSleep {
                        task: cx.waker().clone(),
                    }));
                    let gone = DROPPED_BY_ITS_WAKE.with(|slot| match slot.borrow_mut().as_mut() {
                        Some(sleep) => {
                            let _ = sleep.as_mut().poll(&mut Context::from_waker(&waker));
                            false
                        }
                        None => true,
                    });
                    if gone { Poll::Ready(()) } else { Poll::Pending }
                })
                .await;
                let woke_at = time();
                // Dropped after it fired: its cancel counts nothing.
                let cancelled = timers.cancelled();
                sleep(ten).await;
                (woke_at, cancelled, time())
            })
            .expect("both sleeps wake their task")
    });
    assert_eq!(woke_at, Duration::from_millis(10));
    assert_eq!(cancelled, 0, "a fired timer's cancel is not counted");
    assert_eq!(next_at, Duration::from_millis(20));
}

#[test]
fn a_waking_timer_cancelled_while_queued_is_let_go_though_no_sleep_fires_after_it() {
    // The due list keeps a cancelled entry until something drops it. Here no waking
    // timer fires afterwards: only callback timers run. The entry must go all the same;
    // its label's `Rc` tells whether it is alive (the test holds the other count).
    let alive_later = watchdog_default(|| {
        let name: Rc<str> = Rc::from("doomed");
        let label = oneloop_core::Label::Shared(Rc::clone(&name));
        let weak = Rc::downgrade(&name);
        let mut event_loop = virtual_time_loop();
        let timers = event_loop.core().timers();
        let ten = Duration::from_millis(10);
        // First in order at 10 ms: cancels the waking timer behind it, whose handle is
        // then queued in the same turn, and lets go of its handle.
        let doomed = Rc::new(RefCell::new(None::<oneloop_timers::TimerHandle>));
        let canceller = Rc::clone(&doomed);
        timers.call_later(ten, move || {
            let timer = canceller.borrow_mut().take().expect("registered");
            timer.cancel();
        });
        let waker = Waker::from(Arc::new(Nothing));
        *doomed.borrow_mut() = Some(timers.wake_later_named(ten, label, &waker));
        drop(waker);
        // Two turns later, with no sleep in between: is the entry still alive?
        let seen = Rc::new(RefCell::new(None));
        let (record, main_waker) = (Rc::clone(&seen), Rc::new(RefCell::new(None::<Waker>)));
        let wake_main = Rc::clone(&main_waker);
        timers.call_later(ten * 3, move || {
            *record.borrow_mut() = Some(weak.strong_count());
            if let Some(waker) = wake_main.borrow_mut().take() {
                waker.wake();
            }
        });
        let alive = event_loop
            .run_until_complete(poll_fn(move |cx| match *seen.borrow() {
                Some(alive) => Poll::Ready(alive),
                None => {
                    *main_waker.borrow_mut() = Some(cx.waker().clone());
                    Poll::Pending
                }
            }))
            .expect("main finishes");
        drop(name);
        alive
    });
    assert_eq!(
        alive_later, 1,
        "only the test holds the label: the cancelled entry was dropped"
    );
}

/// A waker that does nothing.
struct Nothing;

impl Wake for Nothing {
    fn wake(self: Arc<Self>) {}
}

/// Records what kind of callback each handle of kind `TimerHandle` runs.
struct TimerHandles(RefCell<Vec<String>>);

impl oneloop_core::Observer for TimerHandles {
    fn handle_started(&self, _turn: u64, handle: &oneloop_core::hooks::Handle) {
        if handle.kind() == "TimerHandle" {
            let callback = match handle.callback() {
                oneloop_core::hooks::Callback::SelfCancelling(_) => "self-cancelling",
                _ => "another kind",
            };
            self.0
                .borrow_mut()
                .push(format!("{}: {callback}", handle.label()));
        }
    }
}

#[test]
fn a_due_timer_is_queued_as_a_self_cancelling_callback_of_its_own() {
    let seen = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let observer = Rc::new(TimerHandles(RefCell::new(Vec::new())));
        event_loop.core().add_observer(observer.clone());
        let timers = event_loop.timers();
        timers.call_later_named(Duration::from_millis(5), "tick", || {});
        event_loop
            .run_until_complete(sleep(Duration::from_millis(10)))
            .expect("main finishes");
        observer.0.take()
    });
    // A sleep's waking timer and a callback timer alike: the entry is the handle's
    // callback and its cancel flag, nothing is made for it.
    assert_eq!(seen, ["tick: self-cancelling", "sleep: self-cancelling"]);
}

/// A zero `timeout` needs no turn: the future is polled once and dropped in the same
/// step, whether it yielded or waits on a long sleep. (asyncio's `timeout(0)` expires
/// through `call_soon`, and its cancel reaches the body a turn or two later.)
#[test]
fn a_zero_timeout_returns_in_the_step_that_polled_the_future_once() {
    let turns = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        event_loop
            .run_until_complete(async {
                let turn = || oneloop_core::hooks::with_current(|core| core.turn());
                let started = turn();
                let yielding = oneloop_timers::timeout(Duration::ZERO, yield_now()).await;
                let waiting =
                    oneloop_timers::timeout(Duration::ZERO, sleep(Duration::from_secs(10))).await;
                assert!(yielding.is_err() && waiting.is_err(), "both time out");
                (started, turn())
            })
            .expect("main finishes")
    });
    assert_eq!(turns, (Some(1), Some(1)));
}

/// An inner sleep with the timeout's own deadline, armed first (the inner future is
/// polled first): both timers fire in one turn, and the inner future, polled first at
/// the next step, wins. (asyncio's scope gives `TimeoutError` there: its cancel reaches
/// the task before the result does.)
#[test]
fn a_future_done_in_the_turn_of_the_deadline_wins_the_timeout() {
    let outcome = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        event_loop
            .run_until_complete(async {
                let limit = Duration::from_millis(10);
                oneloop_timers::timeout(limit, async move {
                    sleep(limit).await;
                    5
                })
                .await
            })
            .expect("main finishes")
    });
    assert_eq!(outcome, Ok(5));
}
