//! The cancellation points the chapter lists, each shown delivering a request that is
//! waiting when it is first polled; and a stage 5 sleep, which is not one.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use oneloop_cancel::{
    AsCompleted, Error, ReturnWhen, current, gather, shield, sleep, spawn_named, task_future,
    task_group, wait, yield_now,
};
use oneloop_testkit::watchdog_default;

type Point = Pin<Box<dyn Future<Output = Result<(), Error>>>>;

/// A point's name and how to make it.
type Case = (&'static str, fn() -> Point);

/// In a fresh task: requests a cancel of itself, moves to its next step with a yield
/// that is not a cancellation point (a request made in a step waits for the next), then
/// awaits the point `make` builds. Returns what the point gave.
fn first_poll_of(make: fn() -> Point) -> Result<(), Error> {
    watchdog_default(move || {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        let (main, task) = task_future("main", async move {
            let me = current().expect("main is a task");
            me.cancel(Some("stop"));
            oneloop_core::yield_now().await;
            let point = make();
            Ok(point.await)
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        task.try_result()
            .expect("main finished")
            .expect("main ends well")
    })
}

fn stopped() -> Result<(), Error> {
    Err(Error::Cancelled(Some("stop".to_owned())))
}

/// A child that would run an hour.
fn long_child() -> oneloop_cancel::Task<()> {
    spawn_named("child", async {
        sleep(Duration::from_secs(3600)).await?;
        Ok(())
    })
}

#[test]
fn every_listed_cancellation_point_delivers_a_waiting_request_at_its_first_poll() {
    let points: Vec<Case> = vec![
        ("sleep", || {
            Box::pin(async { sleep(Duration::from_secs(1)).await })
        }),
        ("yield_now", || Box::pin(async { yield_now().await })),
        ("join", || {
            Box::pin(async {
                let child = long_child();
                child.join().await
            })
        }),
        ("wait", || {
            Box::pin(async {
                let children = [long_child()];
                wait(&children, ReturnWhen::AllCompleted).await.map(drop)
            })
        }),
        ("gather", || {
            Box::pin(async {
                let children = vec![async {
                    sleep(Duration::from_secs(3600)).await?;
                    Ok(())
                }];
                gather(children, false).await.map(drop)
            })
        }),
        ("shield", || {
            Box::pin(async {
                let child = long_child();
                shield(&child).await
            })
        }),
        ("as_completed", || {
            Box::pin(async {
                let mut completed = AsCompleted::new(vec![long_child()]);
                completed.next().await.expect("one task").map(drop)
            })
        }),
        ("a group's wait", || {
            Box::pin(async {
                task_group(|tg| async move {
                    // The body is no point: it returns, and the group's wait meets
                    // the request.
                    tg.spawn("child", async {
                        sleep(Duration::from_secs(3600)).await?;
                        Ok(())
                    })?;
                    Ok(())
                })
                .await
            })
        }),
    ];
    for (name, make) in points {
        assert_eq!(
            first_poll_of(make),
            stopped(),
            "{name} delivers the request"
        );
    }
}

#[test]
fn a_stage_5_sleep_is_no_cancellation_point_and_the_request_waits_through_it() {
    let outcome = first_poll_of(|| {
        Box::pin(async {
            oneloop_timers::sleep(Duration::from_secs(1)).await;
            let slept_at = oneloop_timers::time();
            assert_eq!(slept_at, Duration::from_secs(1), "the whole sleep ran");
            // The next cancellation point delivers the request that waited.
            yield_now().await
        })
    });
    assert_eq!(outcome, stopped());
}
