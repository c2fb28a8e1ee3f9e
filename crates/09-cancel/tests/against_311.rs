//! Edge cases of cancellation checked against what CPython 3.11 does with the same
//! program (asyncio's `wait`, `timeout`, `TaskGroup`, the primitives), and against
//! oneloop's own contract where asyncio has no counterpart: a future dropped unfinished
//! (a select's loser, an aborted task) must leave nothing behind that acts later.

use std::future::Future;
use std::time::Duration;

use oneloop_cancel::{Error, current, sleep, spawn, spawn_named, task_group, timeout};
use oneloop_testkit::watchdog_default;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { spawn_named("main", main).join().await })
        .expect("the loop runs")
}

/// A task group whose one child fails after a second (`Failed("boom")`), and whose body
/// awaits `then` after spawning it.
async fn group_whose_child_fails_after_a_second(
    then: impl Future<Output = ()> + 'static,
) -> Result<(), Error> {
    task_group(|tg| async move {
        tg.spawn("f", async {
            sleep(secs(1)).await?;
            Err::<(), _>(Error::Failed("boom".into()))
        })?;
        then.await;
        Ok(())
    })
    .await
}

#[test]
fn child_failing_during_exit_gives_group_and_leaves_one_request_as_311() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let r = group_whose_child_fails_after_a_second(async {}).await;
            let after = me.cancelling();
            let t = timeout(Duration::from_millis(500), async {
                sleep(secs(1)).await?;
                Ok(())
            })
            .await;
            Ok((r, after, t, me.cancelling()))
        });
        assert_eq!(
            out,
            Ok((
                Err(Error::Group(vec![Error::Failed("boom".into())])),
                1,
                Err(Error::TimedOut),
                1
            ))
        );
    });
}

#[test]
fn outer_cancel_with_a_child_that_swallows_stays_cancelled() {
    watchdog_default(|| {
        let out = run(async {
            let t = spawn(async {
                task_group(|tg| async move {
                    tg.spawn("swallow", async {
                        let _ = sleep(secs(10)).await;
                        Ok(1)
                    })?;
                    sleep(secs(5)).await?;
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            t.cancel(Some("x"));
            let r = t.join().await;
            Ok((r, t.cancelling()))
        });
        assert_eq!(out, Ok((Err(Error::Cancelled(Some("x".into()))), 1)));
    });
}

#[test]
fn timeout_around_a_group_times_out() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let r = timeout(
                secs(1),
                task_group(|tg| async move {
                    tg.spawn("long", async {
                        sleep(secs(10)).await?;
                        Ok(())
                    })?;
                    Ok(())
                }),
            )
            .await;
            Ok((r, me.cancelling()))
        });
        assert_eq!(out, Ok((Err(Error::TimedOut), 0)));
    });
}

#[test]
fn nested_timeouts_with_one_deadline_inner_cancelled_outer_timed_out() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let when = oneloop_timers::time() + secs(1);
            let inner_seen = std::rc::Rc::new(std::cell::RefCell::new(None));
            let seen = std::rc::Rc::clone(&inner_seen);
            let r = oneloop_cancel::timeout_at(when, async move {
                let r = oneloop_cancel::timeout_at(when, async {
                    sleep(secs(10)).await?;
                    Ok(())
                })
                .await;
                *seen.borrow_mut() = Some(r.clone());
                r
            })
            .await;
            let inner = inner_seen.borrow().clone();
            Ok((inner, r, me.cancelling()))
        });
        assert_eq!(
            out,
            Ok((Some(Err(Error::Cancelled(None))), Err(Error::TimedOut), 0))
        );
    });
}

#[test]
fn timeout_over_a_shielded_task_times_out_and_the_task_runs_on() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let w = spawn(async {
                sleep(secs(2)).await?;
                Ok(5)
            });
            let r = timeout(secs(1), oneloop_cancel::shield(&w)).await;
            let done = w.is_done();
            let c = me.cancelling();
            let v = w.join().await;
            Ok((r, done, c, v))
        });
        assert_eq!(out, Ok((Err(Error::TimedOut), false, 0, Ok(5))));
    });
}

#[test]
fn outer_cancel_during_a_timeouts_cleanup_stays_a_cancel() {
    watchdog_default(|| {
        let out = run(async {
            let it = spawn(async {
                let r = timeout(secs(1), async {
                    match sleep(secs(10)).await {
                        Err(e) => {
                            sleep(secs(1)).await?;
                            Err(e)
                        }
                        Ok(()) => Ok(()),
                    }
                })
                .await;
                Ok((r, current().expect("a task").cancelling()))
            });
            sleep(Duration::from_millis(1500)).await?;
            it.cancel(None);
            it.join().await
        });
        assert_eq!(out, Ok((Err(Error::Cancelled(None)), 1)));
    });
}

/// A wait that is not a cancellation point (stage 5's bare sleep).
async fn plain_sleep(d: Duration) {
    oneloop_timers::sleep(d).await;
}

#[test]
fn a_timeouts_own_request_does_not_leak_out_of_its_scope() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let scope = timeout(secs(1), async {
                plain_sleep(secs(2)).await;
                Ok("body done")
            })
            .await;
            let left = me.cancelling();
            // The scope is over and took its request back: nothing should cancel this.
            let after = sleep(secs(1)).await;
            Ok((scope, left, after))
        });
        assert_eq!(out, Ok((Ok("body done"), 0, Ok(()))));
    });
}

#[test]
fn a_groups_own_request_does_not_leak_out_of_the_group() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let r = group_whose_child_fails_after_a_second(plain_sleep(secs(2))).await;
            let left = me.cancelling();
            let after = sleep(secs(1)).await;
            Ok((r, left, after))
        });
        assert_eq!(
            out,
            Ok((
                Err(Error::Group(vec![Error::Failed("boom".into())])),
                0,
                Ok(())
            ))
        );
    });
}

#[test]
fn a_join_dropped_by_select_does_not_divert_a_later_cancel_to_the_child() {
    watchdog_default(|| {
        let out = run(async {
            let child = spawn(async {
                sleep(secs(100)).await?;
                Ok("child done")
            });
            let parent = spawn(async move {
                // Wait for the child at most one second; the join loses and is dropped.
                let first = oneloop_cancel::select(child.join(), sleep(secs(1))).await;
                let lost = matches!(first, oneloop_cancel::Selected::Second(Ok(()), _));
                // Now sleep: a cancel of this task must be delivered here.
                let slept = sleep(secs(10)).await;
                let at = oneloop_timers::time();
                let child_cancelling = child.cancelling();
                Ok((lost, slept, at, child_cancelling))
            });
            sleep(secs(2)).await?;
            parent.cancel(Some("stop"));
            parent.join().await
        });
        assert_eq!(
            out,
            Ok((true, Err(Error::Cancelled(Some("stop".into()))), secs(2), 0))
        );
    });
}

#[test]
fn an_outer_cancel_during_a_groups_exit_is_not_diverted_by_a_dropped_join() {
    watchdog_default(|| {
        let out = run(async {
            let owner = spawn(async {
                let r = task_group(|tg| async move {
                    let c1 = tg.spawn("c1", async {
                        sleep(secs(100)).await?;
                        Ok(())
                    })?;
                    tg.spawn("c2", async {
                        sleep(secs(100)).await?;
                        Ok(())
                    })?;
                    // Wait for c1 at most a second, then leave the body in that step.
                    let _ = oneloop_cancel::select(c1.join(), sleep(secs(1))).await;
                    Ok(())
                })
                .await;
                Ok((r, oneloop_timers::time()))
            });
            sleep(secs(2)).await?;
            owner.cancel(Some("stop"));
            owner.join().await
        });
        // asyncio: the owner's wait in `__aexit__` takes the cancel, both children are
        // cancelled, and the group raises it at once.
        assert_eq!(
            out,
            Ok((Err(Error::Cancelled(Some("stop".into()))), secs(2)))
        );
    });
}

#[test]
fn aborting_a_task_inside_a_timeout_releases_the_timeouts_timer() {
    watchdog_default(|| {
        let out = run(async {
            let t = spawn(async {
                timeout(secs(100), async {
                    sleep(secs(200)).await?;
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            t.abort();
            let _ = t.join().await;
            // The aborted task's sleep timer and its scope's deadline timer are gone:
            // only timers of this task remain.
            Ok(oneloop_timers::Timers::current().expect("timers").live())
        });
        assert_eq!(out, Ok(0));
    });
}

#[test]
fn a_timeout_scope_dropped_by_select_does_not_cancel_its_task_later() {
    watchdog_default(|| {
        let out = run(async {
            let me = current().expect("a task");
            let kept = std::rc::Rc::new(std::cell::RefCell::new(None));
            let holder = std::rc::Rc::clone(&kept);
            let deadline = oneloop_timers::time() + secs(1);
            let raced = oneloop_cancel::select(
                oneloop_cancel::timeout_scope(Some(deadline), move |scope| {
                    // A handle kept to move the deadline from elsewhere.
                    *holder.borrow_mut() = Some(scope);
                    async {
                        sleep(secs(10)).await?;
                        Ok(())
                    }
                }),
                sleep(Duration::from_millis(500)),
            )
            .await;
            let other_won = matches!(raced, oneloop_cancel::Selected::Second(Ok(()), _));
            // The scope is gone; its deadline must not cancel this task now.
            let after = sleep(secs(2)).await;
            Ok((other_won, after, me.cancelling()))
        });
        assert_eq!(out, Ok((true, Ok(()), 0)));
    });
}

#[test]
fn a_timeout_fires_after_a_join_was_dropped_by_select_in_its_body() {
    watchdog_default(|| {
        let out = run(async {
            let child = spawn(async {
                sleep(secs(100)).await?;
                Ok(())
            });
            let r = timeout(secs(1), async {
                let _ =
                    oneloop_cancel::select(child.join(), sleep(Duration::from_millis(500))).await;
                sleep(secs(10)).await?;
                Ok(())
            })
            .await;
            Ok((r, oneloop_timers::time(), child.cancelling()))
        });
        // asyncio.timeout(1) around `await asyncio.wait({child}, timeout=0.5); await
        // asyncio.sleep(10)` raises TimeoutError at 1 s and leaves the child alone.
        assert_eq!(out, Ok((Err(Error::TimedOut), secs(1), 0)));
    });
}

#[test]
fn aborting_a_gathers_owner_stops_the_children_it_spawned() {
    watchdog_default(|| {
        let out = run(async {
            let done = std::rc::Rc::new(std::cell::Cell::new(0));
            let d = std::rc::Rc::clone(&done);
            let t = spawn(async move {
                let mk = |d: std::rc::Rc<std::cell::Cell<u32>>| async move {
                    sleep(secs(5)).await?;
                    d.set(d.get() + 1);
                    Ok(())
                };
                oneloop_cancel::gather(vec![mk(d.clone()), mk(d.clone())], false).await?;
                Ok(())
            });
            sleep(secs(1)).await?;
            t.abort();
            let _ = t.join().await;
            sleep(secs(10)).await?;
            Ok(done.get())
        });
        // As a group's dropped owner cancels its children (groups.md), the tasks a
        // dropped gather spawned should not finish their work.
        assert_eq!(out, Ok(0));
    });
}
