//! Done callbacks on a one-shot future: registered at once, told in one list with the
//! waiters, run inside the settling call.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};

use oneloop_future::{FutureError, OneShot, Wait};
use oneloop_testkit::{DropFlag, watchdog_default};

type Log = Arc<Mutex<Vec<&'static str>>>;

/// A waker that writes its name into the log when woken.
struct Named(&'static str, Log);

impl Wake for Named {
    fn wake(self: Arc<Self>) {
        self.1.lock().unwrap().push(self.0);
    }
}

/// Polls a fresh waiter of `future` once with a waker named `name`; it must wait.
fn wait_named(future: &OneShot<u32, ()>, name: &'static str, log: &Log) -> Pin<Box<Wait<u32, ()>>> {
    let waker = Waker::from(Arc::new(Named(name, Arc::clone(log))));
    let mut waiter = Box::pin(future.wait());
    let polled = waiter.as_mut().poll(&mut Context::from_waker(&waker));
    assert!(polled.is_pending());
    waiter
}

#[test]
fn callbacks_and_waiters_are_told_in_the_order_they_registered() {
    let log = watchdog_default(|| {
        let log = Log::default();
        let future = OneShot::<u32, ()>::new();
        let _a = wait_named(&future, "waiter-a", &log);
        let seen = Arc::clone(&log);
        future.add_done_callback(move |_| seen.lock().unwrap().push("callback"));
        let _b = wait_named(&future, "waiter-b", &log);
        future.set_result(5).expect("set once");
        log.lock().unwrap().clone()
    });
    assert_eq!(log, ["waiter-a", "callback", "waiter-b"]);
}

#[test]
fn a_callback_runs_inside_the_settling_call_with_the_lock_released() {
    let got = watchdog_default(|| {
        let future = OneShot::<u32, ()>::new();
        let got = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&got);
        // Reading the result takes the future's lock: it would block if it were held.
        future.add_done_callback(move |future| *seen.lock().unwrap() = Some(future.result()));
        assert_eq!(
            *got.lock().unwrap(),
            None,
            "nothing runs before the settling call"
        );
        future.set_result(9).expect("set once");
        got.lock().unwrap().take()
    });
    assert_eq!(got, Some(Ok(9)));
}

#[test]
fn a_callback_added_to_a_settled_future_runs_at_once() {
    let got = watchdog_default(|| {
        let future = OneShot::<u32, ()>::new();
        assert!(future.cancel());
        let got = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&got);
        future.add_done_callback(move |future| *seen.lock().unwrap() = Some(future.result()));
        got.lock().unwrap().take()
    });
    assert_eq!(got, Some(Err(FutureError::Cancelled)));
}

#[test]
fn a_callback_on_a_future_never_settled_is_dropped_with_the_future() {
    let flag = DropFlag::new();
    let guard = flag.guard();
    let future = OneShot::<u32, ()>::new();
    future.add_done_callback(move |_| drop(guard));
    assert!(!flag.dropped());
    // The callback holds the future weakly: dropping the last handle frees both.
    drop(future);
    assert_eq!(flag.drops(), 1);
}
