//! Two of the chapter's gotchas through the public API, on a virtual clock: a cancel
//! during cleanup, and a future that is never awaited.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, shield, sleep, spawn_named, task_future, yield_now};
use oneloop_testkit::watchdog_default;
use oneloop_timers::Timers;

fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> T {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    let (main, task) = task_future("main", main);
    event_loop.run_until_complete(main).expect("the loop runs");
    task.try_result()
        .expect("main finished")
        .expect("main ends well")
}

type Log = Rc<RefCell<Vec<String>>>;

fn note(log: &Log, line: impl Into<String>) {
    log.borrow_mut().push(line.into());
}

#[test]
fn a_second_cancel_during_cleanup_cuts_the_cleanup_short_at_its_await() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let w = Rc::clone(&l);
            let task = spawn_named("worker", async move {
                let Err(cancel) = sleep(Duration::from_secs(10)).await else {
                    return Ok(());
                };
                note(&w, "cleanup starts");
                match sleep(Duration::from_secs(1)).await {
                    Ok(()) => note(&w, "cleanup done"),
                    Err(_) => note(&w, "cleanup cut short"),
                }
                Err(cancel)
            });
            yield_now().await?;
            task.cancel(None);
            yield_now().await?;
            yield_now().await?;
            task.cancel(None);
            task.join().await.ok();
            Ok(())
        });
        assert_eq!(*log.borrow(), ["cleanup starts", "cleanup cut short"]);
    });
}

#[test]
fn a_cleanup_run_as_a_shielded_task_finishes_through_a_second_cancel() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let w = Rc::clone(&l);
            let task = spawn_named("worker", async move {
                let Err(cancel) = sleep(Duration::from_secs(10)).await else {
                    return Ok(());
                };
                let c = Rc::clone(&w);
                let cleanup = spawn_named("cleanup", async move {
                    sleep(Duration::from_secs(1)).await?;
                    note(&c, format!("cleanup done at {:?}", oneloop_timers::time()));
                    Ok(())
                });
                if shield(&cleanup).await.is_err() {
                    note(&w, "the worker stops waiting; its cleanup runs on");
                }
                Err(cancel)
            });
            yield_now().await?;
            task.cancel(None);
            yield_now().await?;
            yield_now().await?;
            task.cancel(None);
            task.join().await.ok();
            // Main outlives the cleanup task, so the loop runs it to its end.
            sleep(Duration::from_secs(5)).await?;
            Ok(())
        });
        assert_eq!(
            *log.borrow(),
            [
                "the worker stops waiting; its cleanup runs on",
                "cleanup done at 1s"
            ]
        );
    });
}

#[test]
fn a_future_never_awaited_runs_nothing_and_arms_no_timer() {
    watchdog_default(|| {
        let ran = Rc::new(Cell::new(false));
        let r = Rc::clone(&ran);
        let timers = run(async move {
            let body = async move {
                r.set(true);
                sleep(Duration::from_secs(1)).await
            };
            // Made and never awaited. A bare `sleep(d);` statement draws the
            // compiler's `unused_must_use` warning; here they are dropped on purpose.
            drop(body);
            drop(sleep(Duration::from_secs(1)));
            Ok(Timers::current().expect("timers").live())
        });
        assert!(!ran.get(), "no code of the body ran");
        assert_eq!(timers, 0, "no timer was armed");
    });
}
