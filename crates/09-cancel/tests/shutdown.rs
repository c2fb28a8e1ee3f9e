//! `run`'s cleanup, asyncio's way, through the public API on a virtual clock: leftover
//! tasks are cancelled and awaited, within a bound, and failures are reported.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{
    Error, SHUTDOWN_FAILED, SHUTDOWN_UNFINISHED, Shutdown, run_cancelling, sleep, spawn_named,
};
use oneloop_core::NEVER_RETRIEVED;
use oneloop_testkit::{DropFlag, watchdog_default};

type Log = Rc<RefCell<Vec<String>>>;

fn note(log: &Log, line: impl Into<String>) {
    log.borrow_mut().push(line.into());
}

fn now() -> Duration {
    oneloop_timers::time()
}

/// A virtual-time loop whose exception reports go to `reports` as `message|label|text`.
fn event_loop(reports: &Log) -> oneloop_timers::TimerLoop {
    let event_loop = oneloop_timers::virtual_time_loop();
    let reports = Rc::clone(reports);
    event_loop.core().set_exception_handler(move |report| {
        note(
            &reports,
            format!("{}|{}|{}", report.message, report.label, report.panic),
        );
    });
    event_loop
}

const BOUND: Duration = Duration::from_secs(30);

#[test]
fn leftovers_are_cancelled_then_awaited_so_their_cleanup_runs() {
    watchdog_default(|| {
        let (log, reports) = (Log::default(), Log::default());
        let l = Rc::clone(&log);
        let (main, shutdown) = run_cancelling(event_loop(&reports), BOUND, async move {
            let w = Rc::clone(&l);
            drop(spawn_named("worker", async move {
                match sleep(Duration::from_secs(3600)).await {
                    Err(Error::Cancelled(message)) => {
                        note(&w, format!("worker cancelled at {:?}", now()));
                        // A cleanup that needs the loop: it awaits.
                        sleep(Duration::from_secs(1)).await.ok();
                        note(&w, format!("worker cleaned up at {:?}", now()));
                        Err(Error::Cancelled(message))
                    }
                    other => other,
                }
            }));
            sleep(Duration::from_secs(2)).await?;
            note(&l, "main returns");
            Ok(5)
        })
        .expect("the loop runs");
        assert_eq!(main, Ok(5));
        assert_eq!(
            *log.borrow(),
            [
                "main returns",
                "worker cancelled at 2s",
                "worker cleaned up at 3s"
            ]
        );
        assert_eq!(
            shutdown,
            Shutdown {
                cancelled: vec!["worker".to_owned()],
                ..Shutdown::default()
            }
        );
        assert!(
            reports.borrow().is_empty(),
            "nothing to report: {reports:?}"
        );
    });
}

#[test]
fn a_failure_in_cleanup_is_reported_once_and_not_as_never_retrieved() {
    watchdog_default(|| {
        let reports = Log::default();
        let (main, shutdown) = run_cancelling(event_loop(&reports), BOUND, async {
            drop(spawn_named("failing", async {
                if sleep(Duration::from_secs(3600)).await.is_err() {
                    return Err::<(), _>(Error::Failed("cleanup failed".to_owned()));
                }
                Ok(())
            }));
            Ok(())
        })
        .expect("the loop runs");
        assert_eq!(main, Ok(()));
        assert_eq!(
            shutdown.failed,
            vec![(
                "failing".to_owned(),
                Error::Failed("cleanup failed".to_owned())
            )]
        );
        assert_eq!(
            *reports.borrow(),
            [format!("{SHUTDOWN_FAILED}|failing|failed: cleanup failed")],
            "reported once, and not also as {NEVER_RETRIEVED:?}"
        );
    });
}

#[test]
fn a_leftover_still_running_at_the_bound_is_reported_and_dropped_at_close() {
    watchdog_default(|| {
        let (log, reports) = (Log::default(), Log::default());
        let held = DropFlag::new();
        let (l, h) = (Rc::clone(&log), held.clone());
        let (main, shutdown) = run_cancelling(event_loop(&reports), BOUND, async move {
            drop(spawn_named("stubborn", async move {
                let _held = h.guard();
                if sleep(Duration::from_secs(3600)).await.is_err() {
                    note(&l, format!("stubborn ignores the cancel at {:?}", now()));
                }
                // Swallowed: an hour more, far past the bound.
                sleep(Duration::from_secs(3600)).await.ok();
                note(&l, "stubborn finished");
                Ok(())
            }));
            Ok(())
        })
        .expect("the loop runs");
        assert_eq!(main, Ok(()));
        assert_eq!(shutdown.unfinished, vec!["stubborn".to_owned()]);
        assert_eq!(*log.borrow(), ["stubborn ignores the cancel at 0ns"]);
        assert_eq!(held.drops(), 1, "the close dropped it, once");
        assert_eq!(
            *reports.borrow(),
            [format!("{SHUTDOWN_UNFINISHED}|stubborn|")]
        );
    });
}

#[test]
fn a_leftover_that_catches_the_cancel_and_returns_is_counted_as_finished() {
    watchdog_default(|| {
        let reports = Log::default();
        let (_, shutdown) = run_cancelling(event_loop(&reports), BOUND, async {
            drop(spawn_named("polite", async {
                sleep(Duration::from_secs(3600)).await.ok();
                Ok(1)
            }));
            drop(spawn_named("plain", async {
                sleep(Duration::from_secs(3600)).await?;
                Ok(2)
            }));
            Ok(())
        })
        .expect("the loop runs");
        assert_eq!(shutdown.finished, vec!["polite".to_owned()]);
        assert_eq!(shutdown.cancelled, vec!["plain".to_owned()]);
        assert!(reports.borrow().is_empty());
    });
}

#[test]
fn with_no_leftover_the_cleanup_spends_no_turn() {
    watchdog_default(|| {
        let reports = Log::default();
        let event_loop = event_loop(&reports);
        let core = Rc::clone(event_loop.core());
        let (main, shutdown) = run_cancelling(event_loop, BOUND, async {
            // A child that finished before main returns is no leftover.
            spawn_named("done", async { Ok(()) }).join().await?;
            Ok(())
        })
        .expect("the loop runs");
        assert_eq!(main, Ok(()));
        assert_eq!(shutdown, Shutdown::default());
        // main: turns 1 and 3, its child in 2, the stop callback in 4; nothing after.
        assert_eq!(core.turn(), 4);
    });
}
