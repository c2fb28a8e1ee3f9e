//! Stage 9's scenarios: cancellation on the real runtime (`oneloop-cancel`).
//!
//! Each is the program of a truth scenario of the same name (`tests/asyncio/<name>.py`),
//! so the stepper can show CPython's turns beside oneloop's. Both run in virtual time.
//! The main task is a task of the cancel layer, so that it can run cancellation points.

use std::future::Future;
use std::io;
use std::time::Duration;

use oneloop_cancel::{Error, sleep, spawn_named, task_future, task_group};
use oneloop_timers::virtual_time_loop;

use crate::session::{Session, start};

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

/// A session whose main task is a task of the cancel layer.
fn cancel_main(main: impl Future<Output = Result<(), Error>> + 'static) -> Box<dyn Session> {
    let (future, _task) = task_future("main", main);
    start(virtual_time_loop(), async move {
        future.await;
    })
}

// ANCHOR: taskgroup_one_fails
/// A task group with two children: `bad` fails at 0.1 s, so the group cancels its
/// sibling `a` (asleep for 0.5 s) and its own body (asleep for 100 s), waits for both,
/// and ends with the one error.
pub fn taskgroup_one_fails() -> io::Result<Box<dyn Session>> {
    Ok(cancel_main(async {
        let grouped = task_group(|tg| async move {
            tg.spawn("a", sleep(ms(500)))?;
            tg.spawn("bad", async {
                sleep(ms(100)).await?;
                Err::<(), _>(Error::Failed("boom".into()))
            })?;
            sleep(Duration::from_secs(100)).await
        })
        .await;
        assert!(matches!(grouped, Err(Error::Group(_))), "the group fails");
        Ok(())
    }))
}
// ANCHOR_END: taskgroup_one_fails

// ANCHOR: cancel_sleeping_task
/// A task asleep for 10 s is cancelled: the request is delivered at its `sleep` in its
/// next step, its cleanup awaits a 0.1 s sleep of its own, and it ends cancelled.
pub fn cancel_sleeping_task() -> io::Result<Box<dyn Session>> {
    Ok(cancel_main(async {
        let task = spawn_named("sleeper", async {
            match sleep(Duration::from_secs(10)).await {
                Err(Error::Cancelled(message)) => {
                    sleep(ms(100)).await?;
                    Err(Error::Cancelled(message))
                }
                other => other,
            }
        });
        sleep(Duration::ZERO).await?;
        task.cancel(Some("stop"));
        assert!(task.join().await.is_err(), "the sleeper ends cancelled");
        Ok(())
    }))
}
// ANCHOR_END: cancel_sleeping_task
