//! Exercise 2: the pool's worker loop — wait on the condvar, take a job, run it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use crate::common::{KILLER_MESSAGE, LIMIT, from_job, hold_then_kill};
use ex07_offload::{
    DEFAULT_KEEP_ALIVE, OffloadError, POOL_SHUT_DOWN, ThreadPool, default_max_threads,
};
use oneloop_testkit::watchdog;

/// Submits a job that, once running, waits to be released and then calls `then`; returns
/// once it runs, with the sender that releases it.
fn run_held(pool: &ThreadPool, then: impl FnOnce() + Send + 'static) -> mpsc::Sender<()> {
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    pool.submit(move || {
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        then();
    })
    .unwrap();
    from_job(&started_rx, pool);
    release_tx
}

#[test]
fn ex2_a_job_runs_on_a_worker_thread() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::new();
        assert_eq!(pool.threads(), 0, "threads start lazily");
        let (tx, rx) = mpsc::channel();
        pool.submit(move || tx.send(thread::current().id()).unwrap())
            .unwrap();
        let worker = from_job(&rx, &pool);
        assert_ne!(worker, thread::current().id());
    });
}

#[test]
fn ex2_two_jobs_run_at_the_same_time() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(2, Duration::from_secs(5));
        // Each job waits for the other: they can only finish if both run at once.
        let both = Arc::new(Barrier::new(2));
        let (tx, rx) = mpsc::channel();
        for name in ["a", "b"] {
            let both = Arc::clone(&both);
            let tx = tx.clone();
            pool.submit(move || {
                both.wait();
                tx.send(name).unwrap();
            })
            .unwrap();
        }
        // Only the jobs hold senders now: were they dropped, `from_job` would know.
        drop(tx);
        let mut done = [from_job(&rx, &pool), from_job(&rx, &pool)];
        done.sort();
        assert_eq!(done, ["a", "b"]);
        assert!(pool.threads() <= 2);
    });
}

#[test]
fn ex2_a_panicking_job_leaves_its_worker_alive() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(1, Duration::from_secs(5));
        pool.submit(|| panic!("job failed on purpose")).unwrap();
        let (tx, rx) = mpsc::channel();
        pool.submit(move || tx.send("after").unwrap()).unwrap();
        assert_eq!(
            from_job(&rx, &pool),
            "after",
            "the one worker ran the next job"
        );
        assert_eq!(pool.panicked(), 1);
    });
}

#[test]
fn ex2_the_pool_never_starts_more_threads_than_its_limit() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(2, Duration::from_secs(5));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(std::sync::Mutex::new(release_rx));
        let (done_tx, done_rx) = mpsc::channel();
        for i in 0..6 {
            let release_rx = Arc::clone(&release_rx);
            let done_tx = done_tx.clone();
            pool.submit(move || {
                release_rx.lock().unwrap().recv().unwrap();
                done_tx.send(i).unwrap();
            })
            .unwrap();
        }
        assert!(pool.threads() <= 2, "{} threads", pool.threads());
        for _ in 0..6 {
            release_tx.send(()).unwrap();
        }
        drop(done_tx);
        let mut done: Vec<_> = (0..6).map(|_| from_job(&done_rx, &pool)).collect();
        done.sort();
        assert_eq!(done, [0, 1, 2, 3, 4, 5]);
        assert!(default_max_threads() <= 32);
    });
}

#[test]
fn ex2_shutdown_waits_for_a_running_job() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(2, Duration::from_secs(5));
        let finished = Arc::new(AtomicBool::new(false));
        let done = Arc::clone(&finished);
        let release_tx = run_held(&pool, move || done.store(true, Ordering::SeqCst));
        let releaser = thread::spawn(move || release_tx.send(()).unwrap());
        let report = pool.shutdown(Duration::from_secs(8));
        releaser.join().unwrap();
        assert!(report.is_clean(), "{report}");
        assert!(
            finished.load(Ordering::SeqCst),
            "shutdown returned after the job"
        );
    });
}

#[test]
fn ex2_shutdown_reports_the_job_it_left_after_the_timeout() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(2, Duration::from_secs(5));
        // Held until after shutdown gave up: it cannot finish in time.
        let release_tx = run_held(&pool, || {});
        let report = pool.shutdown(Duration::from_millis(20));
        release_tx.send(()).unwrap();
        assert_eq!((report.running, report.queued), (1, 0), "{report}");
        assert!(report.to_string().contains("1 still running"));
        assert_eq!(
            pool.submit(|| {}),
            Err(OffloadError::PoolShutDown),
            "a shut-down pool takes no job"
        );
        assert!(POOL_SHUT_DOWN.contains("shut down"));
    });
}

#[test]
fn ex2_a_job_queued_as_the_last_idle_worker_exits_still_runs() {
    // One thread at most, and no keep-alive: after every job the only worker times out
    // at once and exits, and the next submit races with its exit. A submit that still
    // counts the exiting thread starts no other, so that thread must take the job.
    const ROUNDS: usize = 2_000;
    // Each round waits for a thread to start and for its job's reply: little CPU, but
    // on a loaded machine a few milliseconds of waiting for the scheduler, which two
    // thousand rounds add up to seconds. So the rounds go in batches, each under a
    // watchdog of its own: a round that never ends is still a hang.
    const BATCH: usize = 100;
    let mut state = (ThreadPool::with_limits(1, Duration::ZERO), mpsc::channel());
    for first in (0..ROUNDS).step_by(BATCH) {
        state = watchdog(LIMIT, move || {
            let (pool, (tx, rx)) = state;
            for round in first..first + BATCH {
                // Spread the submits over the worker's way out: a varying spin, not a
                // sleep; whatever the timing, every job must run.
                for _ in 0..(round % 100) * 50 {
                    std::hint::spin_loop();
                }
                let tx = tx.clone();
                pool.submit(move || tx.send(round).unwrap()).unwrap();
                assert_eq!(from_job(&rx, &pool), round, "round {round}");
                assert!(pool.threads() <= 1, "{} threads", pool.threads());
            }
            (pool, (tx, rx))
        });
    }
}

#[test]
fn ex2_a_worker_that_dies_outside_any_job_breaks_the_pool_and_drops_its_queue() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(1, DEFAULT_KEEP_ALIVE);
        let hold = hold_then_kill(&pool);
        let (tx, rx) = mpsc::channel::<u32>();
        for n in 0..3 {
            let tx = tx.clone();
            pool.submit(move || tx.send(n).unwrap()).unwrap();
        }
        drop(tx);
        hold.release();
        // The three jobs are dropped unrun, and their senders with them.
        assert_eq!(rx.recv().ok(), None, "a job queued behind the killer ran");
        assert!(!pool.is_open());
        assert_eq!(pool.threads(), 0);
        match pool.submit(|| {}) {
            Err(OffloadError::PoolBroken(why)) => {
                assert!(why.contains(KILLER_MESSAGE), "the reason was: {why}");
            }
            other => panic!("expected PoolBroken, got {other:?}"),
        }
    });
}

#[test]
fn ex2_an_idle_worker_takes_the_next_job_and_no_thread_is_started() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(4, Duration::from_secs(60));
        for round in 0..5 {
            let (tx, rx) = mpsc::channel();
            pool.submit(move || tx.send(round).unwrap()).unwrap();
            assert_eq!(from_job(&rx, &pool), round);
            // Wait until the job is uncounted: the worker does that, finds the queue
            // empty and waits on the condvar, counted as idle, in one hold of the lock.
            // (The pool's `Debug` shows the counters; no sleep, only a re-check.)
            while !format!("{pool:?}").contains("running: 0") {
                thread::yield_now();
            }
            assert_eq!(
                pool.threads(),
                1,
                "round {round}: a job found an idle worker, yet a thread was started"
            );
        }
    });
}

#[test]
fn ex2_shutdown_lets_the_workers_finish_the_jobs_still_queued() {
    watchdog(LIMIT, || {
        // One thread, busy with a job held open, and a second job queued behind it.
        let pool = ThreadPool::with_limits(1, Duration::from_secs(60));
        let release_tx = run_held(&pool, || {});
        let (queued_tx, queued_rx) = mpsc::channel();
        pool.submit(move || queued_tx.send("ran").unwrap()).unwrap();
        let shutting = {
            let pool = pool.clone();
            thread::spawn(move || pool.shutdown(Duration::from_secs(8)))
        };
        // Released only once the shutdown began: the queued job is then found by a
        // worker of a pool that takes no more jobs, and must still run.
        while pool.is_open() {
            thread::yield_now();
        }
        release_tx.send(()).unwrap();
        let report = shutting.join().unwrap();
        assert!(
            report.is_clean(),
            "shutdown gave up on the queue it should have finished: {report}"
        );
        assert_eq!(queued_rx.try_recv(), Ok("ran"), "the queued job ran");
    });
}
