//! A watchdog: a test that hangs fails instead, with a message saying so.
//!
//! One more way out, for the course's exercise tests: a test named `exM_…` whose code
//! reaches an unfinished hole (a `todo!("stage N, exercise K: …")`, or a challenge's
//! `todo!("stage N, challenge: …")`) on some other thread
//! (a thread the test started, the loop's thread, a pool worker) would otherwise wait
//! for a reply that thread was to send, until the limit. The watchdog hears that panic
//! through a process-wide panic hook and fails the test at once with the hole's message.
//! The hook cannot tell which test started the thread that panicked, so every waiting
//! exercise test of the process is told. `cargo course test N` therefore runs each
//! exercise's tests in a process of their own: the holes a process reaches are the ones
//! its exercise needs, an exercise whose tests reach a hole is not passed, and failing
//! it early changes only how long the learner waits. Tests not named `exM_…` (the
//! reference crates' own) are never told.

use std::panic;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, mpsc};
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
    let hole_listener = thread::current()
        .name()
        .is_some_and(is_exercise_test)
        .then(|| HoleListener::register(done_tx.clone()));
    let worker = thread::Builder::new()
        .name("test body (watchdog)".into())
        .spawn(move || {
            let outcome = panic::catch_unwind(panic::AssertUnwindSafe(body));
            // The receiver is gone only if the watchdog already gave up; nothing to tell.
            let _ = done_tx.send(Outcome::Finished(outcome));
        })
        .expect("spawning the test body's thread");
    let outcome = done_rx.recv_timeout(limit);
    drop(hole_listener);
    match outcome {
        Ok(Outcome::Finished(Ok(value))) => {
            worker.join().expect("the body already finished");
            value
        }
        Ok(Outcome::Finished(Err(payload))) => {
            let _ = worker.join();
            panic::resume_unwind(payload)
        }
        Ok(Outcome::HoleReached(message)) => panic!(
            "watchdog: another thread of this test reached an unfinished hole, so the \
             test cannot finish: {message}"
        ),
        Err(_) => panic!(
            "watchdog: the test did not finish within {limit:?}; it is hung \
             (a lost wakeup, a loop that is never stopped, or a future that is never woken)"
        ),
    }
}

/// What the watchdog hears first: the body's end, or a hole reached on another thread.
enum Outcome<T> {
    Finished(thread::Result<T>),
    HoleReached(String),
}

/// Whether a test's name is an exercise test's, `exM_…`.
fn is_exercise_test(name: &str) -> bool {
    name.strip_prefix("ex")
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(digits, _)| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a panic message is a hole's, `not yet implemented: stage N, exercise K: …`,
/// or a challenge's, `not yet implemented: stage N, challenge: …`.
fn is_hole(message: &str) -> bool {
    message
        .strip_prefix("not yet implemented: stage ")
        .and_then(|rest| rest.split_once(", "))
        .is_some_and(|(stage, rest)| {
            let exercise = rest
                .strip_prefix("exercise ")
                .is_some_and(|k| k.starts_with(|c: char| c.is_ascii_digit()));
            !stage.is_empty()
                && stage.bytes().all(|b| b.is_ascii_digit())
                && (exercise || rest.starts_with("challenge:"))
        })
}

type Notify = Box<dyn Fn(&str) + Send>;

/// The watchdogs of exercise tests now waiting.
static LISTENERS: Mutex<Vec<(u64, Notify)>> = Mutex::new(Vec::new());
static NEXT_LISTENER: AtomicU64 = AtomicU64::new(0);
static HOOK: Once = Once::new();

/// A waiting watchdog's entry in [`LISTENERS`], removed on drop.
struct HoleListener(u64);

impl HoleListener {
    fn register<T: Send + 'static>(tx: mpsc::Sender<Outcome<T>>) -> HoleListener {
        HOOK.call_once(install_hook);
        let id = NEXT_LISTENER.fetch_add(1, Ordering::Relaxed);
        let notify: Notify = Box::new(move |message| {
            // The receiver is gone only once the watchdog stopped waiting.
            let _ = tx.send(Outcome::HoleReached(message.to_string()));
        });
        listeners().push((id, notify));
        HoleListener(id)
    }
}

impl Drop for HoleListener {
    fn drop(&mut self) {
        listeners().retain(|(id, _)| *id != self.0);
    }
}

fn listeners() -> std::sync::MutexGuard<'static, Vec<(u64, Notify)>> {
    // A listener never panics while the lock is held; recover the list if one did.
    LISTENERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Chains a hook after the one already set: it prints as before, then, for a hole's
/// panic, tells every waiting watchdog of an exercise test.
fn install_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        previous(info);
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        let Some(message) = message else { return };
        if is_hole(message) {
            for (_, notify) in listeners().iter() {
                notify(message);
            }
        }
    }));
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
    fn the_body_runs_on_a_thread_of_its_own() {
        let test_thread = thread::current().id();
        let body_thread = watchdog(Duration::from_secs(1), || thread::current().id());
        assert_ne!(body_thread, test_thread);
    }

    #[test]
    #[should_panic(expected = "a watchdog limit above 10s")]
    fn a_limit_above_ten_seconds_is_refused() {
        watchdog(DEFAULT_LIMIT + Duration::from_millis(1), || ());
    }

    #[test]
    #[should_panic(expected = "stage 0, exercise 0")]
    fn a_panic_keeps_its_message() {
        watchdog(Duration::from_secs(1), || todo!("stage 0, exercise 0"));
    }

    #[test]
    fn names_are_read_as_the_course_writes_them() {
        assert!(is_exercise_test("ex3_a_task_runs"));
        assert!(is_exercise_test("ex12_x"));
        assert!(!is_exercise_test("example_test"));
        assert!(!is_exercise_test("ex_3"));
        assert!(is_hole(
            "not yet implemented: stage 7, exercise 1: push the item"
        ));
        assert!(!is_hole("stage 7, exercise 1"));
        assert!(!is_hole("not yet implemented: stage x, exercise 1"));
        assert!(is_hole(
            "not yet implemented: stage 8, challenge: the Node iteration"
        ));
        assert!(!is_hole("not yet implemented: stage 8, something else"));
    }

    /// The test thread's name is what the watchdog reads; name it as the course does.
    fn in_test_named<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
        let child = thread::Builder::new().name(name.into()).spawn(f).unwrap();
        child
            .join()
            .unwrap_or_else(|payload| panic::resume_unwind(payload))
    }

    #[test]
    #[should_panic(expected = "reached an unfinished hole")]
    fn a_hole_reached_on_another_thread_fails_the_test_at_once() {
        in_test_named("ex4_waits_for_a_thread", || {
            // The limit is the default: the test must end long before it, through the hole.
            watchdog(DEFAULT_LIMIT, || {
                let (tx, rx) = mpsc::channel::<()>();
                thread::spawn(move || {
                    let _keep = tx;
                    todo!("stage 0, exercise 4: a hole");
                });
                // Waits for a message the panicking thread never sends (its sender is
                // dropped by the unwind, so this wait ends too; park forever instead).
                let _ = rx.recv();
                thread::park();
            })
        });
    }

    #[test]
    fn a_test_not_named_as_an_exercise_test_is_not_told() {
        let value = in_test_named("reference_test", || {
            watchdog(DEFAULT_LIMIT, || {
                let hole = thread::spawn(|| todo!("stage 0, exercise 6: not an exercise test"));
                assert!(hole.join().is_err());
                5
            })
        });
        assert_eq!(value, 5);
    }
}
