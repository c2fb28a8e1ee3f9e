//! Exercise 1: the one-shot future (chapter 2.2).
//!
//! Waiters are polled by hand with a `CountingWaker`, so these tests need no executor.

use std::error::Error;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

use ex02_future::{FutureError, OneShot, Phase, Wait};
use oneloop_testkit::{CountingWaker, watchdog_default};

/// The producer's error type in these tests.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Boom(&'static str);

impl fmt::Display for Boom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "boom: {}", self.0)
    }
}

impl Error for Boom {}

type Fut = OneShot<u32, Boom>;
type Outcome = Result<u32, FutureError<Boom>>;

fn poll_with(wait: &mut Wait<u32, Boom>, counter: &CountingWaker) -> Poll<Outcome> {
    counter.with_context(|cx| Pin::new(wait).poll(cx))
}

#[test]
fn ex1_pending_until_set_then_ready() {
    watchdog_default(|| {
        let fut = Fut::new();
        let mut wait = fut.wait();
        let counter = CountingWaker::new();
        assert_eq!(poll_with(&mut wait, &counter), Poll::Pending);
        assert_eq!(
            fut.registered_wakers(),
            1,
            "Pending must leave a waker behind"
        );
        assert_eq!(counter.wakes(), 0);

        fut.set_result(7).unwrap();
        assert_eq!(counter.wakes(), 1, "set_result wakes the waiter");
        assert_eq!(fut.registered_wakers(), 0, "settling hands every waker out");
        assert_eq!(poll_with(&mut wait, &counter), Poll::Ready(Ok(7)));
        // A resolved waiter keeps answering, and keeps no waker.
        assert_eq!(poll_with(&mut wait, &counter), Poll::Ready(Ok(7)));
        assert_eq!(counter.live_wakers(), 0);
    });
}

#[test]
fn ex1_a_settled_future_is_ready_on_first_poll() {
    watchdog_default(|| {
        let fut = Fut::new();
        fut.set_result(3).unwrap();
        let mut wait = fut.wait();
        let counter = CountingWaker::new();
        assert_eq!(poll_with(&mut wait, &counter), Poll::Ready(Ok(3)));
        assert_eq!(counter.live_wakers(), 0, "a Ready poll keeps no waker");
        assert_eq!(fut.registered_wakers(), 0);
    });
}

#[test]
fn ex1_completion_wakes_every_waiter() {
    watchdog_default(|| {
        let fut = Fut::new();
        let mut waiters: Vec<_> = (0..3).map(|_| (fut.wait(), CountingWaker::new())).collect();
        for (wait, counter) in &mut waiters {
            assert_eq!(poll_with(wait, counter), Poll::Pending);
        }
        assert_eq!(fut.registered_wakers(), 3);
        fut.set_result(11).unwrap();
        for (wait, counter) in &mut waiters {
            assert_eq!(counter.wakes(), 1);
            assert_eq!(poll_with(wait, counter), Poll::Ready(Ok(11)));
        }
    });
}

#[test]
fn ex1_an_error_reaches_every_waiter() {
    watchdog_default(|| {
        let fut = Fut::new();
        let (mut a, mut b) = (fut.wait(), fut.wait());
        let counter = CountingWaker::new();
        assert_eq!(poll_with(&mut a, &counter), Poll::Pending);
        assert_eq!(poll_with(&mut b, &counter), Poll::Pending);
        fut.set_error(Boom("disk")).unwrap();
        assert_eq!(counter.wakes(), 2);
        let failed = Poll::Ready(Err(FutureError::Failed(Boom("disk"))));
        assert_eq!(poll_with(&mut a, &counter), failed);
        assert_eq!(poll_with(&mut b, &counter), failed);
        assert_eq!(fut.result(), Err(FutureError::Failed(Boom("disk"))));
    });
}

#[test]
fn ex1_cancel_wakes_waiters_with_cancelled() {
    watchdog_default(|| {
        let fut = Fut::new();
        let mut waiters: Vec<_> = (0..2).map(|_| (fut.wait(), CountingWaker::new())).collect();
        for (wait, counter) in &mut waiters {
            assert_eq!(poll_with(wait, counter), Poll::Pending);
        }
        assert!(fut.cancel(), "the first cancel cancels");
        for (wait, counter) in &mut waiters {
            assert_eq!(counter.wakes(), 1, "cancel wakes every waiter");
            assert_eq!(
                poll_with(wait, counter),
                Poll::Ready(Err(FutureError::Cancelled))
            );
        }
        assert!(fut.done() && fut.cancelled());
        assert!(!fut.cancel(), "a settled future cannot be cancelled again");
        assert_eq!(
            fut.set_result(1),
            Err(FutureError::InvalidState {
                attempted: "set_result",
                phase: Phase::Cancelled
            })
        );
    });
}

#[test]
fn ex1_same_waker_is_kept_across_polls() {
    watchdog_default(|| {
        let fut = Fut::new();
        let mut wait = fut.wait();
        let counter = CountingWaker::new();
        let waker = counter.waker();
        for _ in 0..5 {
            let mut cx = Context::from_waker(&waker);
            assert_eq!(Pin::new(&mut wait).poll(&mut cx), Poll::Pending);
        }
        drop(waker);
        assert_eq!(
            counter.live_wakers(),
            1,
            "five polls with one waker keep exactly one clone"
        );
        assert_eq!(fut.registered_wakers(), 1);
        fut.set_result(5).unwrap();
        assert_eq!(counter.wakes(), 1);
        assert_eq!(counter.live_wakers(), 0);
    });
}

#[test]
fn ex1_a_new_waker_replaces_the_old_one() {
    watchdog_default(|| {
        let fut = Fut::new();
        let mut wait = fut.wait();
        let (old, new) = (CountingWaker::new(), CountingWaker::new());
        assert_eq!(poll_with(&mut wait, &old), Poll::Pending);
        assert_eq!(poll_with(&mut wait, &new), Poll::Pending);
        assert_eq!(old.live_wakers(), 0, "the replaced waker is released");
        assert_eq!(new.live_wakers(), 1);
        assert_eq!(fut.registered_wakers(), 1, "still one waiter");
        fut.set_result(9).unwrap();
        assert_eq!(
            (old.wakes(), new.wakes()),
            (0, 1),
            "only the latest waker is woken"
        );
    });
}

#[test]
fn ex1_a_dropped_waiter_leaves_no_waker_behind() {
    watchdog_default(|| {
        let fut = Fut::new();
        let (mut kept, mut dropped) = (fut.wait(), fut.wait());
        let (kept_counter, dropped_counter) = (CountingWaker::new(), CountingWaker::new());
        assert_eq!(poll_with(&mut kept, &kept_counter), Poll::Pending);
        assert_eq!(poll_with(&mut dropped, &dropped_counter), Poll::Pending);
        assert_eq!(fut.registered_wakers(), 2);
        drop(dropped);
        assert_eq!(fut.registered_wakers(), 1);
        assert_eq!(
            dropped_counter.live_wakers(),
            0,
            "dropping a waiter frees its waker"
        );
        fut.set_result(1).unwrap();
        assert_eq!((kept_counter.wakes(), dropped_counter.wakes()), (1, 0));
    });
}

#[test]
fn ex1_set_twice_is_invalid_state() {
    watchdog_default(|| {
        let fut = Fut::new();
        fut.set_result(1).unwrap();
        let done = |attempted| {
            Err(FutureError::InvalidState {
                attempted,
                phase: Phase::Done,
            })
        };
        assert_eq!(fut.set_result(2), done("set_result"));
        assert_eq!(fut.set_error(Boom("late")), done("set_error"));
        assert!(!fut.cancel());
        assert_eq!(fut.result(), Ok(1), "the first value stays");
    });
}

#[test]
fn ex1_result_before_done_is_an_error() {
    watchdog_default(|| {
        let fut = Fut::new();
        assert!(!fut.done());
        assert_eq!(fut.result(), Err(FutureError::NotDone));
    });
}

#[test]
fn ex1_errors_say_what_happened() {
    watchdog_default(|| {
        let twice: FutureError<Boom> = FutureError::InvalidState {
            attempted: "set_result",
            phase: Phase::Done,
        };
        assert_eq!(
            twice.to_string(),
            "invalid state: cannot set_result on a future that is already done with a result"
        );
        let early: FutureError<Boom> = FutureError::NotDone;
        assert_eq!(
            early.to_string(),
            "the result is not set yet: the future is pending"
        );
        let failed = FutureError::Failed(Boom("disk"));
        assert_eq!(failed.to_string(), "the future failed: boom: disk");
        let source = failed
            .source()
            .expect("a failure has the producer's error as source");
        assert_eq!(source.to_string(), "boom: disk");
        let cancelled: FutureError<Boom> = FutureError::Cancelled;
        assert_eq!(cancelled.to_string(), "the future was cancelled");
    });
}

#[test]
fn ex1_a_value_set_on_another_thread_wakes_the_waiter() {
    watchdog_default(|| {
        let fut = Fut::new();
        let mut wait = fut.clone().into_future();
        let counter = CountingWaker::new();
        assert_eq!(poll_with(&mut wait, &counter), Poll::Pending);
        let producer = fut.clone();
        thread::spawn(move || producer.set_result(42).unwrap())
            .join()
            .unwrap();
        assert_eq!(counter.wakes(), 1);
        assert_eq!(poll_with(&mut wait, &counter), Poll::Ready(Ok(42)));
    });
}

/// A waker that polls a waiter the moment it is woken, as an inline executor might.
struct PollOnWake {
    wait: Mutex<Option<Wait<u32, Boom>>>,
    seen: Mutex<Option<Outcome>>,
}

impl Wake for PollOnWake {
    fn wake(self: Arc<Self>) {
        let mut slot = self.wait.lock().unwrap();
        let wait = slot.as_mut().expect("the waiter is in place");
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(outcome) = Pin::new(wait).poll(&mut cx) {
            *self.seen.lock().unwrap() = Some(outcome);
        }
    }
}

#[test]
fn ex1_a_wake_may_poll_the_waiter_at_once() {
    // If settling woke waiters while holding its lock, this poll from inside the wake
    // would wait for that lock for ever; the watchdog would call it a hang.
    watchdog_default(|| {
        let fut = Fut::new();
        let waker_state = Arc::new(PollOnWake {
            wait: Mutex::new(None),
            seen: Mutex::new(None),
        });
        let waker = Waker::from(Arc::clone(&waker_state));
        let mut wait = fut.wait();
        let mut cx = Context::from_waker(&waker);
        assert_eq!(Pin::new(&mut wait).poll(&mut cx), Poll::Pending);
        *waker_state.wait.lock().unwrap() = Some(wait);
        fut.set_result(8).unwrap();
        assert_eq!(*waker_state.seen.lock().unwrap(), Some(Ok(8)));
    });
}

#[test]
fn ex1_handles_and_waiters_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<OneShot<u32, Boom>>();
    send_sync::<Wait<u32, Boom>>();
    send_sync::<FutureError<Boom>>();
    watchdog_default(|| {
        let fut = Fut::new();
        let mut wait = fut.wait();
        let counter = CountingWaker::new();
        assert_eq!(poll_with(&mut wait, &counter), Poll::Pending);
        // The waiter itself moves to another thread and is polled there.
        let outcome = thread::spawn(move || {
            fut.set_result(4).unwrap();
            let counter = CountingWaker::new();
            poll_with(&mut wait, &counter)
        })
        .join()
        .unwrap();
        assert_eq!(outcome, Poll::Ready(Ok(4)));
        assert_eq!(counter.wakes(), 1);
    });
}

/// A waker that writes its name into a shared log when woken.
struct LogOnWake {
    name: u32,
    log: Arc<Mutex<Vec<u32>>>,
}

impl Wake for LogOnWake {
    fn wake(self: Arc<Self>) {
        self.log.lock().unwrap().push(self.name);
    }
}

#[test]
fn ex1_settling_wakes_the_waiters_in_the_order_they_were_made() {
    watchdog_default(|| {
        let fut = Fut::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        // Made in the order 1, 2, 3, 4, but polled (registered) in another order, so
        // neither a stack of wakers nor the order of registration gives 1, 2, 3, 4.
        let mut waits: Vec<_> = (1..=4).map(|_| fut.wait()).collect();
        for index in [2, 0, 3, 1] {
            let waker = Waker::from(Arc::new(LogOnWake {
                name: index as u32 + 1,
                log: Arc::clone(&log),
            }));
            let mut cx = Context::from_waker(&waker);
            assert!(Pin::new(&mut waits[index]).poll(&mut cx).is_pending());
        }
        fut.set_result(7).unwrap();
        assert_eq!(
            *log.lock().unwrap(),
            vec![1, 2, 3, 4],
            "woken in order of creation"
        );
    });
}

/// A waker that, when woken, reads what the woken code would see of the future.
struct ReadOnWake {
    fut: Fut,
    seen: Mutex<Option<(bool, Outcome)>>,
}

impl Wake for ReadOnWake {
    fn wake(self: Arc<Self>) {
        *self.seen.lock().unwrap() = Some((self.fut.done(), self.fut.result()));
    }
}

#[test]
fn ex1_a_woken_waiter_already_sees_the_future_done() {
    // `done()` reads the `settled` flag without the lock. Setting it only after the
    // wakes would let a woken task find a future that has a value but says "not done".
    watchdog_default(|| {
        let fut = Fut::new();
        let reader = Arc::new(ReadOnWake {
            fut: fut.clone(),
            seen: Mutex::new(None),
        });
        let waker = Waker::from(Arc::clone(&reader));
        let mut wait = fut.wait();
        let mut cx = Context::from_waker(&waker);
        assert_eq!(Pin::new(&mut wait).poll(&mut cx), Poll::Pending);
        fut.set_result(6).unwrap();
        assert_eq!(
            reader.seen.lock().unwrap().take(),
            Some((true, Ok(6))),
            "the wake comes after the state and the `settled` flag are both written"
        );
    });
}

#[test]
fn ex1_reading_the_result_leaves_it_for_everyone_else() {
    // asyncio's `result()` may be called any number of times; so may this one, and a
    // waiter that comes later still gets the value.
    watchdog_default(|| {
        let fut = Fut::new();
        fut.set_result(9).unwrap();
        assert_eq!(fut.result(), Ok(9));
        assert_eq!(fut.result(), Ok(9), "a second read gives the same value");
        assert!(fut.done() && !fut.cancelled());
        let mut wait = fut.wait();
        assert_eq!(
            poll_with(&mut wait, &CountingWaker::new()),
            Poll::Ready(Ok(9))
        );
    });
}
