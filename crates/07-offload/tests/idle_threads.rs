//! The pool's threads come with jobs and leave when idle (private behaviour of the
//! reference pool; the exercise crate's tests hold the stage's spec).

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use oneloop_offload::ThreadPool;
use oneloop_testkit::watchdog_default;

#[test]
fn an_idle_worker_exits_after_keep_alive_and_the_next_job_starts_a_new_one() {
    watchdog_default(|| {
        let pool = ThreadPool::with_limits(4, Duration::from_millis(20));
        assert_eq!(pool.threads(), 0, "no thread before the first job");
        let (tx, rx) = mpsc::channel();
        let first = tx.clone();
        pool.submit(move || first.send(thread::current().id()).unwrap())
            .unwrap();
        let one = rx.recv().unwrap();
        // Wait (bounded by the watchdog) for the idle worker to leave.
        while pool.threads() > 0 {
            thread::sleep(Duration::from_millis(5));
        }
        pool.submit(move || tx.send(thread::current().id()).unwrap())
            .unwrap();
        let two = rx.recv().unwrap();
        assert_ne!(one, two, "a fresh thread took the second job");
    });
}
