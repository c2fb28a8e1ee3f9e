//! Exercise 3: `to_thread` — submit, and complete the future from the worker through
//! `call_soon_threadsafe`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::common::{self, LIMIT, from_job, hold_then_kill};
use ex07_offload::{
    DEFAULT_KEEP_ALIVE, JOBS_LEFT, LOOP_CLOSED, Offload, OffloadError, SHUTDOWN_LABEL, ThreadPool,
    new_event_loop, run, run_in_executor, to_thread,
};
use oneloop_core::hooks::PANIC_WITHOUT_MESSAGE;
use oneloop_core::{ExceptionReport, spawn, yield_now};
use oneloop_testkit::watchdog;
use oneloop_timers::sleep;

#[test]
fn ex3_to_thread_returns_the_value_computed_on_a_worker() {
    watchdog(LIMIT, || {
        let (value, worker) = run(async {
            let value = to_thread(|| 6 * 7).await.unwrap();
            let worker = to_thread(|| thread::current().id()).await.unwrap();
            (value, worker)
        })
        .unwrap();
        assert_eq!(value, 42);
        assert_ne!(worker, thread::current().id());
    });
}

/// Two `to_thread` jobs submitted before either is awaited run at the same time, as
/// the `cpu_parallel` example's are: each waits at a barrier for the other, so they can
/// only finish if both run at once (a hang, caught by the watchdog, otherwise).
#[test]
fn ex3_two_jobs_submitted_before_either_is_awaited_run_at_the_same_time() {
    watchdog(LIMIT, || {
        let both = Arc::new(std::sync::Barrier::new(2));
        let ends = run(async move {
            let (a, b) = (Arc::clone(&both), Arc::clone(&both));
            let first = to_thread(move || {
                a.wait();
                "a"
            });
            let second = to_thread(move || {
                b.wait();
                "b"
            });
            (first.await.unwrap(), second.await.unwrap())
        })
        .unwrap();
        assert_eq!(ends, ("a", "b"));
    });
}

#[test]
fn ex3_a_panic_in_the_job_surfaces_at_the_await_with_its_message() {
    watchdog(LIMIT, || {
        let outcome =
            run(async { to_thread(|| -> u32 { panic!("the disk is on fire") }).await }).unwrap();
        match outcome {
            Err(OffloadError::Panicked(message)) => assert_eq!(message, "the disk is on fire"),
            other => panic!("expected the panic at the await, got {other:?}"),
        }
    });
}

#[test]
fn ex3_a_ticker_keeps_ticking_while_a_job_runs_in_the_pool() {
    watchdog(LIMIT, || {
        let log = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&log);
        run(async move {
            // The job waits until the ticker has ticked three times: had the loop been
            // blocked, no tick could happen and the job would never end.
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let ticks = Rc::clone(&seen);
            let ticker = spawn(async move {
                for n in 1..=3 {
                    sleep(Duration::from_millis(100)).await;
                    ticks.borrow_mut().push(format!("tick {n}"));
                }
                release_tx.send(()).unwrap();
            });
            // The ticker has run its first step (its first timer is set).
            yield_now().await;
            let result = to_thread(move || {
                release_rx.recv().unwrap();
                "job done"
            })
            .await
            .unwrap();
            seen.borrow_mut().push(result.to_owned());
            ticker.await.unwrap();
        })
        .unwrap();
        assert_eq!(*log.borrow(), ["tick 1", "tick 2", "tick 3", "job done"]);
    });
}

#[test]
fn ex3_run_in_executor_uses_the_pool_it_is_given() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(1, Duration::from_secs(5));
        let given = pool.clone();
        let name = run(async move {
            run_in_executor(Some(&given), || thread::current().name().map(str::to_owned))
                .await
                .unwrap()
        })
        .unwrap();
        assert_eq!(name.as_deref(), Some("oneloop-pool"));
        assert!(
            pool.is_open(),
            "only the default pool is shut down with the loop"
        );
    });
}

#[test]
fn ex3_run_waits_at_exit_for_a_job_still_running() {
    watchdog(LIMIT, || {
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let finished = Arc::new(AtomicBool::new(false));
        // Releases the job once it runs; says whether it ever did (a job the pool
        // dropped unrun drops its sender, and `recv` fails).
        let releaser = thread::spawn(move || {
            let started = started_rx.recv().is_ok();
            if started {
                release_tx.send(()).unwrap();
            }
            started
        });
        let job_finished = Arc::clone(&finished);
        run(async move {
            // Submitted, never awaited: main returns while the job runs.
            let _job = to_thread(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                job_finished.store(true, Ordering::SeqCst);
            });
        })
        .unwrap();
        assert!(
            releaser.join().unwrap(),
            "the job never ran: the default pool dropped it (did a worker thread panic? \
             its message is above)"
        );
        assert!(
            finished.load(Ordering::SeqCst),
            "closing the loop waited for the default pool's job"
        );
    });
}

#[test]
fn ex3_closing_reports_the_job_left_after_the_timeout() {
    watchdog(LIMIT, || {
        let mut event_loop = new_event_loop().unwrap();
        let reports = Rc::new(RefCell::new(Vec::<ExceptionReport>::new()));
        let sink = Rc::clone(&reports);
        event_loop.set_exception_handler(move |report| sink.borrow_mut().push(report.clone()));
        let offload = Offload::of(event_loop.core()).unwrap();
        offload.set_shutdown_timeout(Duration::from_millis(20));
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        event_loop
            .run_until_complete(async move {
                let _job = to_thread(move || {
                    started_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                });
            })
            .unwrap();
        // The job is running, and cannot finish before the release.
        from_job(&started_rx, &offload.default_pool().unwrap());
        event_loop.close();
        release_tx.send(()).unwrap();
        let report = offload
            .last_shutdown()
            .expect("the default pool was shut down");
        assert_eq!((report.running, report.queued), (1, 0));
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert_eq!(reports[0].message, JOBS_LEFT);
        assert_eq!(reports[0].label.to_string(), SHUTDOWN_LABEL);
        assert!(reports[0].panic.contains("1 still running"));
    });
}

#[test]
fn ex3_the_pool_of_a_closed_loop_is_a_clear_error() {
    watchdog(LIMIT, || {
        let mut event_loop = new_event_loop().unwrap();
        let offload = Offload::of(event_loop.core()).unwrap();
        let pool = event_loop
            .run_until_complete(async {
                let pool = Offload::current().unwrap().default_pool().unwrap();
                to_thread(|| ()).await.unwrap();
                pool
            })
            .unwrap();
        event_loop.close();
        assert_eq!(
            offload.default_pool().unwrap_err(),
            OffloadError::LoopClosed
        );
        assert_eq!(offload.default_pool().unwrap_err().to_string(), LOOP_CLOSED);
        assert_eq!(pool.submit(|| {}), Err(OffloadError::PoolShutDown));
        assert!(offload.last_shutdown().unwrap().is_clean());
    });
}

#[test]
fn ex3_the_result_comes_back_through_the_loop_not_from_the_worker() {
    // The awaiting task's waker must be called on the loop's thread, by the callback
    // the worker handed to `call_soon_threadsafe`: a worker that completed the future
    // itself would call it on the worker's thread.
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Mutex;
    use std::task::{Context, Poll, Wake, Waker};
    use std::thread::ThreadId;

    struct Spy {
        inner: Waker,
        threads: Arc<Mutex<Vec<ThreadId>>>,
    }
    impl Wake for Spy {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.threads.lock().unwrap().push(thread::current().id());
            self.inner.wake_by_ref();
        }
    }
    /// Polls `inner` with a waker that notes the thread of every wake.
    struct Watched<F> {
        inner: F,
        threads: Arc<Mutex<Vec<ThreadId>>>,
    }
    impl<F: Future + Unpin> Future for Watched<F> {
        type Output = F::Output;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
            let waker = Waker::from(Arc::new(Spy {
                inner: cx.waker().clone(),
                threads: Arc::clone(&self.threads),
            }));
            Pin::new(&mut self.inner).poll(&mut Context::from_waker(&waker))
        }
    }

    watchdog(LIMIT, || {
        let threads = Arc::new(Mutex::new(Vec::new()));
        let watched = Arc::clone(&threads);
        let value = run(async move {
            let mut total = 0;
            for n in 0..20 {
                let job = to_thread(move || n);
                total += Watched {
                    inner: job,
                    threads: Arc::clone(&watched),
                }
                .await
                .unwrap();
            }
            total
        })
        .unwrap();
        assert_eq!(value, (0..20).sum::<i32>());
        let threads = threads.lock().unwrap();
        assert!(!threads.is_empty(), "no job ever left the task waiting");
        let here = thread::current().id();
        assert!(
            threads.iter().all(|&woken_on| woken_on == here),
            "the task was woken from a worker thread: the result skipped the loop"
        );
    });
}

#[test]
fn ex3_every_job_queued_when_the_pool_broke_resolves_to_pool_broken() {
    watchdog(LIMIT, || {
        // One thread: the jobs below queue behind a job that holds the worker, and a
        // job that then kills it outside any job. The pool drops them unrun; each
        // future must still resolve, to PoolBroken, not wait for ever.
        let pool = ThreadPool::with_limits(1, DEFAULT_KEEP_ALIVE);
        let hold = hold_then_kill(&pool);
        let ran = Arc::new(AtomicBool::new(false));
        let outcomes = run(async move {
            let offload = Offload::current().unwrap();
            offload.set_default_pool(pool.clone());
            let mut waiting = Vec::new();
            for n in 0..3 {
                let ran = Arc::clone(&ran);
                waiting.push(to_thread(move || {
                    ran.store(true, Ordering::SeqCst);
                    n
                }));
            }
            waiting.push(run_in_executor(Some(&pool), || 3));
            hold.release();
            let mut outcomes = Vec::new();
            for future in waiting {
                outcomes.push(future.await);
            }
            assert!(
                !ran.load(Ordering::SeqCst),
                "a job queued behind the killer ran"
            );
            outcomes
        })
        .unwrap();
        assert_eq!(outcomes.len(), 4);
        for outcome in outcomes {
            match outcome {
                Err(OffloadError::PoolBroken(why)) => {
                    assert!(
                        why.contains("dropped before it ran"),
                        "the reason was: {why}"
                    );
                }
                other => panic!("expected PoolBroken, got {other:?}"),
            }
        }
    });
}

#[test]
fn ex3_a_panic_whose_payload_panics_when_dropped_still_surfaces_at_the_await() {
    // The payload is the panicking code's value; its drop is user code and panics
    // here. Dropped carelessly in the job, that second panic unwinds the job past its
    // `send`, and the future waits for ever; `panic_message` drops it safely.
    watchdog(LIMIT, || {
        let (first, second, open) = run(async {
            let first =
                to_thread(|| -> u32 { std::panic::panic_any(common::KillsItsWorker) }).await;
            let second = to_thread(|| 5_u32).await;
            let open = Offload::current()
                .unwrap()
                .default_pool()
                .unwrap()
                .is_open();
            (first, second, open)
        })
        .unwrap();
        assert_eq!(
            first,
            Err(OffloadError::Panicked(PANIC_WITHOUT_MESSAGE.to_owned()))
        );
        assert_eq!(second, Ok(5), "the default pool took the next job");
        assert!(open, "the default pool is still open");
    });
}

#[test]
fn ex3_each_job_answers_the_loop_exactly_once() {
    // Every job hands the loop one callback: its result. A `send` that never marks the
    // answer sent lets the `Deliver`'s drop queue a second one (a `PoolBroken` that
    // `complete` then ignores), so the loop runs two callbacks per job.
    use oneloop_core::Observer;
    use oneloop_core::hooks::{Handle, with_current};
    use std::cell::Cell;

    /// Counts the callbacks the loop runs (task steps are not callbacks).
    struct Callbacks(Cell<usize>);
    impl Observer for Callbacks {
        fn handle_started(&self, _turn: u64, handle: &Handle) {
            if handle.kind() == "Handle" {
                self.0.set(self.0.get() + 1);
            }
        }
    }

    const JOBS: usize = 20;
    watchdog(LIMIT, || {
        let counter = Rc::new(Callbacks(Cell::new(0)));
        // One thread: the callbacks of one job reach the inbox before the next job's,
        // so once the last job's result is back, every earlier callback has run.
        let pool = ThreadPool::with_limits(1, DEFAULT_KEEP_ALIVE);
        let given = pool.clone();
        let (total, ran) = run(async move {
            with_current(|core| core.add_observer(Rc::clone(&counter) as Rc<dyn Observer>))
                .expect("a running loop");
            let mut total = 0;
            for n in 0..JOBS {
                total += run_in_executor(Some(&given), move || n).await.unwrap();
            }
            // Read before main returns (the loop's own stop callback comes after). The
            // last job's second callback may land after its result resumed main; each
            // earlier job's has run by now.
            (total, counter.0.get())
        })
        .unwrap();
        assert_eq!(total, (0..JOBS).sum::<usize>());
        assert!(
            ran == JOBS,
            "{JOBS} jobs made the loop run {ran} callbacks: a job answered more than once \
             (does `send` set `sent` before it hands the outcome over?)"
        );
        assert!(pool.shutdown(Duration::from_secs(5)).is_clean());
    });
}

#[test]
fn ex3_a_pool_that_refuses_the_job_gives_its_own_error_at_the_await() {
    watchdog(LIMIT, || {
        let pool = ThreadPool::with_limits(1, Duration::from_secs(5));
        assert!(pool.shutdown(Duration::ZERO).is_clean());
        let given = pool.clone();
        let result = run(async move { run_in_executor(Some(&given), || 42).await }).unwrap();
        // The pool's refusal, not the answer of a job dropped unrun (`PoolBroken`).
        assert_eq!(result, Err(OffloadError::PoolShutDown));
    });
}
