//! Exercise 3: a group's first failure cancels the rest, then the group waits for all.
//!
//! The tests go through `sleep`, a cancellation point: they need exercise 1 too.

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::{run, secs};
use ex09_cancel::{Error, current, sleep, task_group};
use oneloop_testkit::watchdog_default;

#[test]
fn ex3_the_first_failure_cancels_the_siblings_and_the_body() {
    watchdog_default(|| {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = Rc::clone(&seen);
        let result = run(async move {
            let s2 = Rc::clone(&s);
            let r = task_group(|tg| async move {
                for (name, delay) in [("a", 5), ("b", 6)] {
                    let s3 = Rc::clone(&s2);
                    tg.spawn(name, async move {
                        let slept = sleep(secs(delay)).await;
                        s3.borrow_mut().push(format!("{name} {slept:?}"));
                        slept
                    })?;
                }
                tg.spawn("bad", async {
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("boom".into()))
                })?;
                let slept = sleep(secs(100)).await;
                s2.borrow_mut().push(format!("body {slept:?}"));
                slept
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![Error::Failed("boom".into())])),
                secs(1)
            ))
        );
        assert_eq!(
            *seen.borrow(),
            [
                "a Err(Cancelled(None))",
                "b Err(Cancelled(None))",
                "body Err(Cancelled(None))"
            ]
        );
    });
}

#[test]
fn ex3_every_failure_is_kept_and_a_cancelled_child_is_none() {
    watchdog_default(|| {
        let result = run(async {
            task_group(|tg| async move {
                for name in ["x", "y"] {
                    tg.spawn(name, async move {
                        sleep(secs(1)).await?;
                        Err::<(), _>(Error::Failed(name.into()))
                    })?;
                }
                tg.spawn("cancelled", async { sleep(secs(9)).await })?;
                Ok(())
            })
            .await
        });
        assert_eq!(
            result,
            Err(Error::Group(vec![
                Error::Failed("x".into()),
                Error::Failed("y".into())
            ]))
        );
    });
}

#[test]
fn ex3_a_group_whose_children_succeed_returns_the_bodys_value() {
    watchdog_default(|| {
        let result = run(async {
            task_group(|tg| async move {
                tg.spawn("ok", async { sleep(secs(2)).await })?;
                Ok("body")
            })
            .await
            .map(|body| (body, oneloop_timers::time()))
        });
        assert_eq!(result, Ok(("body", secs(2))));
    });
}

#[test]
fn ex3_two_failures_at_once_cancel_the_owner_once_and_the_group_takes_it_back() {
    watchdog_default(|| {
        let result = run(async {
            let r = task_group(|tg| async move {
                for name in ["x", "y"] {
                    tg.spawn(name, async move {
                        sleep(secs(1)).await?;
                        Err::<(), _>(Error::Failed(name.into()))
                    })?;
                }
                sleep(secs(100)).await
            })
            .await;
            let me = current().expect("main is a task");
            let left = me.cancelling();
            // No request of the group is left to cancel the owner's next await.
            let after = sleep(secs(1)).await;
            Ok((r.is_err(), left, after, oneloop_timers::time()))
        });
        assert_eq!(result, Ok((true, 0, Ok(()), secs(2))));
    });
}

#[test]
fn ex3_the_group_waits_for_a_cancelled_siblings_cleanup() {
    watchdog_default(|| {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = Rc::clone(&seen);
        let result = run(async move {
            let r = task_group(|tg| async move {
                tg.spawn("slow to stop", async move {
                    let slept = sleep(secs(5)).await;
                    // Cleanup that awaits, after the cancel.
                    sleep(secs(1)).await?;
                    s.borrow_mut().push(oneloop_timers::time());
                    slept
                })?;
                tg.spawn("bad", async {
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("boom".into()))
                })?;
                Ok(())
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![Error::Failed("boom".into())])),
                secs(2)
            ))
        );
        assert_eq!(*seen.borrow(), [secs(2)], "the cleanup ran to its end");
    });
}

/// The wrong mechanism "every first failure cancels the owner", forgetting that a
/// group already shutting down (here its owner was cancelled from outside) must not
/// cancel it again: a child that fails in its cleanup then adds a request of the
/// group's that nobody takes back, and the owner's next await is cancelled by it.
#[test]
fn ex3_a_failure_while_the_group_shuts_down_does_not_cancel_the_owner_again() {
    watchdog_default(|| {
        let result = run(async {
            let owner = ex09_cancel::spawn(async {
                let r = task_group(|tg| async move {
                    tg.spawn("cleanup-fails", async {
                        match sleep(secs(10)).await {
                            Err(Error::Cancelled(_)) => {
                                Err::<(), _>(Error::Failed("cleanup".into()))
                            }
                            other => other,
                        }
                    })?;
                    sleep(secs(100)).await
                })
                .await;
                let me = current().expect("the owner is a task");
                let left = me.cancelling();
                let next = sleep(secs(1)).await;
                Ok((r, left, next))
            });
            sleep(secs(1)).await?;
            owner.cancel(None);
            owner.join().await
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![Error::Failed("cleanup".into())])),
                1,
                Ok(())
            )),
            "only the outer request is left, and it was delivered already"
        );
    });
}

/// The wrong mechanism "an outer cancel while the group waits only stops the wait":
/// once the body is done, a cancel of the owner must still cancel the children (the
/// group then waits for their cleanup and leaves cancelled), not wait for them to
/// finish on their own.
#[test]
fn ex3_an_outer_cancel_while_the_group_waits_for_its_children_cancels_them() {
    watchdog_default(|| {
        let result = run(async {
            let owner = ex09_cancel::spawn(async {
                let r = task_group(|tg| async move {
                    tg.spawn("long", async { sleep(secs(100)).await })?;
                    Ok("body done")
                })
                .await;
                Ok((r, oneloop_timers::time()))
            });
            sleep(secs(1)).await?;
            owner.cancel(None);
            owner.join().await
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), secs(1))));
    });
}

/// The wrong mechanism "wake the waiting owner at every child's end": the owner
/// waits for the last child, and only that end wakes it (asyncio completes its
/// waiting future once, when no task is left), not one step per child.
#[test]
fn ex3_the_waiting_owner_is_woken_once_by_the_last_child_not_by_each() {
    watchdog_default(|| {
        let result = run(async {
            let me = current().expect("main is a task");
            let r = task_group(|tg| async move {
                for n in 1..=3 {
                    tg.spawn("child", async move { sleep(secs(n)).await })?;
                }
                Ok(())
            })
            .await;
            Ok((r, me.steps(), oneloop_timers::time()))
        });
        let (r, steps, time) = result.expect("main ends well");
        assert_eq!((r, time), (Ok(()), secs(3)));
        // Main's first step spawns the children and starts waiting; one more step,
        // the last child's wake, ends the group.
        assert_eq!(steps, 2, "the owner's steps while the children ran");
    });
}

/// The wrong mechanism "only a cancel of the body shuts the group down": a body that
/// fails cancels the children too, and the group waits for them. A child whose
/// cleanup fails adds its error; the body's own error comes last in the list, as
/// asyncio 3.11 appends it after the wait.
#[test]
fn ex3_a_failing_body_cancels_the_children_and_its_error_comes_last() {
    watchdog_default(|| {
        let result = run(async {
            let r = task_group(|tg| async move {
                tg.spawn("sleeper", async { sleep(secs(10)).await })?;
                tg.spawn("cleanup-fails", async {
                    match sleep(secs(10)).await {
                        Err(Error::Cancelled(_)) => Err::<(), _>(Error::Failed("cleanup".into())),
                        other => other,
                    }
                })?;
                sleep(secs(1)).await?;
                Err::<(), _>(Error::Failed("body".into()))
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![
                    Error::Failed("cleanup".into()),
                    Error::Failed("body".into())
                ])),
                secs(1)
            ))
        );
    });
}

/// The wrong mechanism "a group takes children until it is dropped": once it cancels
/// its children it refuses new ones (`GROUP_SHUTTING_DOWN`), and once its body and
/// children are done it refuses them too (`GROUP_FINISHED`); a refused future never
/// runs.
#[test]
fn ex3_a_group_refuses_new_children_once_shutting_down_or_finished() {
    watchdog_default(|| {
        let ran = Rc::new(std::cell::Cell::new(0));
        let refused = Rc::new(RefCell::new(Vec::new()));
        let (r2, f2) = (Rc::clone(&ran), Rc::clone(&refused));
        let result = run(async move {
            let kept = Rc::new(RefCell::new(None));
            let (k, r3, f3) = (Rc::clone(&kept), Rc::clone(&r2), Rc::clone(&f2));
            let shutting = task_group(|tg| async move {
                tg.spawn("bad", async { Err::<(), _>(Error::Failed("x".into())) })?;
                *k.borrow_mut() = Some(tg.clone());
                // The failure cancels the body here.
                let slept = sleep(secs(1)).await;
                let late = tg.spawn("late", async move {
                    r3.set(r3.get() + 1);
                    Ok(())
                });
                f3.borrow_mut().push(late.map(|_| ()));
                slept
            })
            .await;
            let tg = kept.borrow_mut().take().expect("kept");
            let after = tg.spawn("after", async move {
                r2.set(r2.get() + 1);
                Ok(())
            });
            f2.borrow_mut().push(after.map(|_| ()));
            sleep(secs(1)).await?;
            Ok(shutting)
        });
        assert_eq!(
            result,
            Ok(Err(Error::Group(vec![Error::Failed("x".into())])))
        );
        assert_eq!(
            *refused.borrow(),
            [
                Err(Error::Misuse(ex09_cancel::GROUP_SHUTTING_DOWN)),
                Err(Error::Misuse(ex09_cancel::GROUP_FINISHED))
            ]
        );
        assert_eq!(ran.get(), 0, "a refused child ran");
    });
}

/// The wrong mechanism "a group is finished only once its owner has left": it is
/// finished as soon as its body has returned and its last child is done. The last
/// child's own done callback runs after the group's (added first, at spawn), and a
/// child it spawns is refused (`GROUP_FINISHED`), so the group still ends with it.
#[test]
fn ex3_a_child_spawned_by_the_last_childs_done_callback_is_refused() {
    watchdog_default(|| {
        let refused = Rc::new(RefCell::new(Vec::new()));
        let r = Rc::clone(&refused);
        let result = run(async move {
            task_group(|tg| async move {
                let only = tg.spawn("only", async { sleep(secs(1)).await })?;
                let late_tg = tg.clone();
                only.add_done_callback("spawn more", move || {
                    let late = late_tg.spawn("late", async { sleep(secs(5)).await });
                    r.borrow_mut().push(late.map(|_| ()));
                });
                Ok(())
            })
            .await
            .map(|()| oneloop_timers::time())
        });
        assert_eq!(result, Ok(secs(1)));
        assert_eq!(
            *refused.borrow(),
            [Err(Error::Misuse(ex09_cancel::GROUP_FINISHED))]
        );
    });
}

/// The wrong mechanism "only the group's wait cancels the children": an owner aborted
/// (its future dropped, Rust's way) never reaches that wait again, so the group's drop
/// must cancel the children still running. Nothing can wait in a drop: the owner ends
/// at once, and the children run their cleanup on later turns instead of finishing.
#[test]
fn ex3_an_aborted_owner_cancels_its_groups_children() {
    watchdog_default(|| {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = Rc::clone(&seen);
        let result = run(async move {
            let owner = ex09_cancel::spawn(async move {
                task_group(|tg| async move {
                    for name in ["a", "b"] {
                        let s = Rc::clone(&s);
                        tg.spawn(name, async move {
                            let slept = sleep(secs(10)).await;
                            let at = oneloop_timers::time();
                            s.borrow_mut().push(format!("{name} {slept:?} at {at:?}"));
                            if slept.is_err() {
                                // Cleanup that awaits, after the cancel.
                                sleep(secs(1)).await?;
                                let at = oneloop_timers::time();
                                s.borrow_mut().push(format!("{name} cleaned up at {at:?}"));
                            }
                            slept
                        })?;
                    }
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            owner.abort();
            let ended = (owner.join().await, oneloop_timers::time());
            sleep(secs(30)).await?;
            Ok(ended)
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), secs(1))));
        assert_eq!(
            *seen.borrow(),
            [
                "a Err(Cancelled(None)) at 1s",
                "b Err(Cancelled(None)) at 1s",
                "a cleaned up at 2s",
                "b cleaned up at 2s",
            ]
        );
    });
}

/// The wrong mechanism "once the body has ended there is no owner to cancel": a child
/// that fails while the group waits for the others still cancels the owner, whose
/// wait takes the cancel. As on 3.11, the group takes that request back only when the
/// body ends, before the wait, so `cancelling()` of the owner says 1 after the group;
/// the request was delivered, so the owner's next await is not cancelled.
#[test]
fn ex3_a_failure_after_the_body_ended_still_cancels_the_owner() {
    watchdog_default(|| {
        let result = run(async {
            let r = task_group(|tg| async move {
                tg.spawn("sibling", async { sleep(secs(10)).await })?;
                tg.spawn("bad", async {
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("late".into()))
                })?;
                Ok(())
            })
            .await;
            let me = current().expect("main is a task");
            let left = me.cancelling();
            let next = sleep(secs(1)).await;
            Ok((r, left, next, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![Error::Failed("late".into())])),
                1,
                Ok(()),
                secs(2)
            ))
        );
    });
}
