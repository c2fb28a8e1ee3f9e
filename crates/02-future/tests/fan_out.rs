//! What the `fan_out` example reports, asserted: four threads each `block_on` their own
//! waiter of one `OneShot`; one `set_result` wakes them all, and each waiter needed two
//! polls (one that registered its waker, one that found the value).

use std::thread;

use oneloop_future::{OneShot, block_on};
use oneloop_testkit::{PollCounter, watchdog_default};

const WAITERS: usize = 4;

#[test]
fn one_set_result_wakes_four_blocked_threads_each_after_two_polls() {
    let results = watchdog_default(|| {
        let fut: OneShot<u64, String> = OneShot::new();
        let threads: Vec<_> = (0..WAITERS)
            .map(|_| {
                let wait = PollCounter::new(fut.wait());
                let polls = wait.count_handle();
                thread::spawn(move || (block_on(wait), polls.get()))
            })
            .collect();
        // Each thread has polled once and parked when its waker is registered.
        while fut.registered_wakers() < WAITERS {
            thread::yield_now();
        }
        fut.set_result(42).expect("the value is set once");
        let results: Vec<_> = threads
            .into_iter()
            .map(|t| t.join().expect("a waiter thread panicked"))
            .collect();
        (results, fut.registered_wakers())
    });
    assert_eq!(results, (vec![(Ok(42), 2); WAITERS], 0));
}
