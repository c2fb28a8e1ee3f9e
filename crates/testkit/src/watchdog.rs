//! A watchdog: a test that hangs fails instead, with a message saying so.

use std::panic;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// The longest any oneloop test may run before it is declared hung.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(10);

/// Runs `body` on a fresh thread and waits at most `limit` for it.
///
/// The body's result is returned; a panic in the body is re-raised here with its
/// original message (so an unfinished exercise's `todo!` reads as itself). If the body
/// has not finished after `limit`, this panics with a message naming the likely causes.
/// The hung thread cannot be killed; it is left behind and ends with the test process.
///
/// A watchdog cannot stop an executor that spins without ever returning to a point
/// where it could notice time passing — for those tests, use a poll budget instead.
///
/// # Panics
///
/// When `limit` is above [`DEFAULT_LIMIT`] (tests stay bounded), when the body panics,
/// or when it does not finish in time.
pub fn watchdog<T, F>(limit: Duration, body: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    assert!(
        limit <= DEFAULT_LIMIT,
        "a watchdog limit above {DEFAULT_LIMIT:?} would let a hang slow the suite down"
    );
    let (done_tx, done_rx) = mpsc::channel();
    let worker = thread::Builder::new()
        .name("test body (watchdog)".into())
        .spawn(move || {
            let outcome = panic::catch_unwind(panic::AssertUnwindSafe(body));
            // The receiver is gone only if the watchdog already gave up; nothing to tell.
            let _ = done_tx.send(outcome);
        })
        .expect("spawning the test body's thread");
    match done_rx.recv_timeout(limit) {
        Ok(Ok(value)) => {
            worker.join().expect("the body already finished");
            value
        }
        Ok(Err(payload)) => {
            let _ = worker.join();
            panic::resume_unwind(payload)
        }
        Err(_) => panic!(
            "watchdog: the test did not finish within {limit:?}; it is hung \
             (a lost wakeup, a loop that is never stopped, or a future that is never woken)"
        ),
    }
}

/// [`watchdog`] with the default limit of ten seconds.
pub fn watchdog_default<T, F>(body: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    watchdog(DEFAULT_LIMIT, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_bodys_value() {
        assert_eq!(watchdog(Duration::from_secs(1), || 7), 7);
    }

    #[test]
    #[should_panic(expected = "watchdog: the test did not finish")]
    fn a_hang_becomes_a_failure() {
        watchdog(Duration::from_millis(50), || {
            thread::park();
        });
    }

    #[test]
    #[should_panic(expected = "stage 0, exercise 0")]
    fn a_panic_keeps_its_message() {
        watchdog(Duration::from_secs(1), || todo!("stage 0, exercise 0"));
    }
}
