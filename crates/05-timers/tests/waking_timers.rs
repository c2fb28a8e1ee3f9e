//! A sleep's timer wakes its task through one shared callback and a first-in,
//! first-out list of due timers. A timer cancelled after it came due (its handle is
//! already queued, and will be skipped) must not shift the list: every later sleep due
//! in the same turn still wakes its own task, in its own turn.
//!
//! The cancel flag a due sleep's handle carries is reused by a later sleep once that
//! handle has fired it, so a cancel of the fired timer must not reach the flag.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use oneloop_core::spawn;
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
fn cancelling_a_fired_sleeps_timer_does_not_cancel_the_sleep_that_reuses_its_flag() {
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
