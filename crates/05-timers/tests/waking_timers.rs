//! A sleep's timer wakes its task through one shared callback and a first-in,
//! first-out list of due timers. A timer cancelled after it came due (its handle is
//! already queued, and will be skipped) must not shift the list: every later sleep due
//! in the same turn still wakes its own task, in its own turn.

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

fn time_of(timers: &oneloop_timers::Timers) -> Duration {
    timers.time()
}
