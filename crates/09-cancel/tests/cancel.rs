//! Stage 9 through its public API, on a virtual clock: turns and drops are counted.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{
    AsCompleted, Error, GROUP_FINISHED, GROUP_SHUTTING_DOWN, LoserFate, RESULT_TAKEN, ReturnWhen,
    Selected, TIMEOUT_OVER, cancellable, current, gather, race, select, shield, sleep, spawn,
    spawn_named, task_future, task_group, timeout, timeout_scope, wait, wait_for, yield_now,
};
use oneloop_core::ExceptionReport;
use oneloop_testkit::{DropFlag, cpu_watchdog, watchdog_default};
use oneloop_timers::Timers;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}

fn live_timers() -> usize {
    Timers::current().expect("a timer loop runs").live()
}

/// Runs `main` as a task of this layer on a virtual-time loop (each test runs under a
/// watchdog, a hang detector only).
fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { spawn_named("main", main).join().await })
        .expect("the loop runs")
}

/// A boxed child of a gather.
type Boxed = std::pin::Pin<Box<dyn Future<Output = Result<u32, Error>>>>;

type Log = Rc<RefCell<Vec<String>>>;

fn log() -> Log {
    Rc::new(RefCell::new(Vec::new()))
}

fn note(log: &Log, line: impl Into<String>) {
    log.borrow_mut().push(line.into());
}

/// A virtual-time loop whose exception handler records each report as `line` writes it.
fn reporting_loop(
    line: fn(&ExceptionReport) -> String,
) -> (oneloop_timers::TimerLoop, Rc<RefCell<Vec<String>>>) {
    let reports = Rc::new(RefCell::new(Vec::new()));
    let into = Rc::clone(&reports);
    let event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .core()
        .set_exception_handler(move |report| into.borrow_mut().push(line(report)));
    (event_loop, reports)
}

/// A report as `message at SECONDS (label): panic`, the time read on the loop's clock.
fn timed(report: &ExceptionReport) -> String {
    format!(
        "{} at {} ({}): {}",
        report.message,
        oneloop_timers::time().as_secs(),
        report.label,
        report.panic
    )
}

#[test]
fn abort_drops_every_future_inside_exactly_once_and_releases_its_timers() {
    watchdog_default(|| {
        let outer = DropFlag::new();
        let inner = DropFlag::new();
        let sibling = DropFlag::new();
        let (o, i, s) = (outer.clone(), inner.clone(), sibling.clone());
        let seen = run(async move {
            let child = spawn(async move {
                let _outer = o.guard();
                let nested = async move {
                    let _inner = i.guard();
                    oneloop_timers::sleep(secs(100)).await;
                };
                let other = async move {
                    let _sibling = s.guard();
                    oneloop_timers::sleep(secs(50)).await;
                };
                select(nested, other).await;
                Ok(())
            });
            yield_now().await?;
            let timers_before = live_timers();
            assert!(child.abort(), "a running task can be aborted");
            let result = child.join().await;
            Ok((timers_before, live_timers(), result, child.is_cancelled()))
        });
        let (timers_before, timers_after, result, cancelled) = seen.expect("main finishes");
        assert_eq!(timers_before, 2, "both sleeps held a timer");
        assert_eq!(timers_after, 0, "the abort released both timers");
        assert_eq!(result, Err(Error::Cancelled(None)));
        assert!(cancelled);
        assert_eq!((outer.drops(), inner.drops(), sibling.drops()), (1, 1, 1));
    });
}

#[test]
fn abort_drops_the_future_at_the_tasks_next_step_not_at_the_call() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let f = flag.clone();
        let seen = log();
        let s = Rc::clone(&seen);
        run(async move {
            let probe = f.clone();
            let child: oneloop_cancel::Task<()> = spawn(async move {
                let _guard = f.guard();
                yield_now().await?;
                Ok(())
            });
            yield_now().await?;
            // The child suspended once; abort it from here and see its drop at its step.
            assert!(child.abort());
            note(&s, format!("after abort, dropped={}", probe.dropped()));
            let result = child.join().await;
            note(&s, format!("{result:?}"));
            Ok(())
        })
        .expect("main finishes");
        assert_eq!(flag.drops(), 1);
        assert_eq!(
            *seen.borrow(),
            ["after abort, dropped=false", "Err(Cancelled(None))"]
        );
    });
}

#[test]
fn cancel_of_a_sleeping_task_is_seen_at_its_await_and_cleanup_may_await() {
    watchdog_default(|| {
        let seen = log();
        let s = Rc::clone(&seen);
        run(async move {
            let s2 = Rc::clone(&s);
            let child = spawn(async move {
                match sleep(secs(10)).await {
                    Err(Error::Cancelled(message)) => {
                        note(&s2, format!("saw cancel {message:?} in turn {}", turn()));
                        sleep(secs(1)).await.expect("cleanup is not cancelled");
                        note(&s2, format!("cleanup done at {:?}", oneloop_timers::time()));
                        Err(Error::Cancelled(message))
                    }
                    other => other,
                }
            });
            sleep(secs(1)).await?;
            note(&s, format!("cancel in turn {}", turn()));
            assert!(child.cancel(Some("stop")));
            let result = child.join().await;
            note(
                &s,
                format!("joined {result:?} cancelled={}", child.is_cancelled()),
            );
            Ok(())
        })
        .expect("main finishes");
        let lines = seen.borrow();
        let cancel_turn: u64 = lines[0].rsplit(' ').next().unwrap().parse().unwrap();
        assert_eq!(
            lines[1],
            format!("saw cancel Some(\"stop\") in turn {}", cancel_turn + 1)
        );
        assert_eq!(lines[2], "cleanup done at 2s");
        assert_eq!(
            lines[3],
            "joined Err(Cancelled(Some(\"stop\"))) cancelled=true"
        );
    });
}

#[test]
fn a_task_may_catch_the_cancel_and_carry_on() {
    watchdog_default(|| {
        let result = run(async {
            let child = spawn(async {
                let first = sleep(secs(10)).await;
                sleep(secs(1)).await?;
                Ok(format!("{first:?} then carried on"))
            });
            yield_now().await?;
            child.cancel(None);
            let result = child.join().await;
            Ok((result, child.is_cancelled(), child.cancelling()))
        });
        assert_eq!(
            result,
            Ok((
                Ok("Err(Cancelled(None)) then carried on".to_owned()),
                false,
                1
            ))
        );
    });
}

#[test]
fn cancel_of_a_finished_task_returns_false() {
    watchdog_default(|| {
        let result = run(async {
            let child = spawn(async { Ok(7) });
            let value = child.join().await;
            Ok((value, child.cancel(None), child.abort(), child.cancelling()))
        });
        assert_eq!(result, Ok((Ok(7), false, false, 0)));
    });
}

/// Both requests count. A task that waits on a sleep sees the first message, as 3.11's
/// sleep future took the first request; a task whose step is queued (it yielded) sees
/// the latest, as in 3.11, where no future held it.
#[test]
fn a_second_cancel_counts_and_the_message_depends_on_where_the_task_waits() {
    watchdog_default(|| {
        let result = run(async {
            let mut seen = Vec::new();
            for bare in [false, true] {
                let child = spawn(async move {
                    if bare {
                        yield_now().await
                    } else {
                        sleep(secs(10)).await
                    }
                });
                yield_now().await?;
                let first = child.cancel(Some("one"));
                let second = child.cancel(Some("two"));
                seen.push((first, second, child.cancelling(), child.join().await));
            }
            Ok(seen)
        });
        let cancelled = |message: &str| Err(Error::Cancelled(Some(message.to_owned())));
        assert_eq!(
            result,
            Ok(vec![
                (true, true, 2, cancelled("one")),
                (true, true, 2, cancelled("two")),
            ])
        );
    });
}

/// A request made before the task's first step ends it at that step, with none of its
/// code run: asyncio throws into a coroutine that has not started.
#[test]
fn a_task_cancelled_before_its_first_step_runs_none_of_its_code() {
    watchdog_default(|| {
        let ran = Rc::new(Cell::new(false));
        let flag = Rc::clone(&ran);
        let result = run(async move {
            let child = spawn(async move {
                flag.set(true);
                yield_now().await
            });
            child.cancel(Some("early"));
            Ok(child.join().await)
        });
        assert_eq!(result, Ok(Err(Error::Cancelled(Some("early".to_owned())))));
        assert!(!ran.get(), "the body never started");
    });
}

#[test]
fn a_request_never_delivered_still_ends_the_task_cancelled() {
    watchdog_default(|| {
        let result = run(async {
            let child = spawn(async {
                // A stage 5 sleep is not a cancellation point.
                oneloop_timers::sleep(secs(1)).await;
                Ok(1)
            });
            yield_now().await?;
            child.cancel(Some("late"));
            Ok(child.join().await)
        });
        assert_eq!(result, Ok(Err(Error::Cancelled(Some("late".to_owned())))));
    });
}

#[test]
fn cancelling_a_task_that_awaits_another_cancels_the_awaited_one() {
    watchdog_default(|| {
        let result = run(async {
            let inner = Rc::new(spawn(async { sleep(secs(10)).await }));
            let i = Rc::clone(&inner);
            let outer = spawn(async move { i.join().await });
            yield_now().await?;
            yield_now().await?;
            outer.cancel(Some("down"));
            let outer_result = outer.join().await;
            Ok((outer_result, inner.is_cancelled()))
        });
        assert_eq!(
            result,
            Ok((Err(Error::Cancelled(Some("down".to_owned()))), true))
        );
    });
}

#[test]
fn shield_keeps_the_awaited_task_running() {
    watchdog_default(|| {
        let result = run(async {
            let inner = Rc::new(spawn(async {
                sleep(secs(2)).await?;
                Ok("inner done")
            }));
            let i = Rc::clone(&inner);
            let outer = spawn(async move { shield(&i).await });
            sleep(secs(1)).await?;
            outer.cancel(None);
            let outer_result = outer.join().await;
            let inner_result = inner.join().await;
            Ok((outer_result, inner_result, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((Err(Error::Cancelled(None)), Ok("inner done"), secs(2)))
        );
    });
}

#[test]
fn shield_of_a_task_cancelled_elsewhere_gives_a_cancel_with_no_message() {
    watchdog_default(|| {
        let result = run(async {
            let inner = Rc::new(spawn(async {
                sleep(secs(2)).await?;
                Ok("inner done")
            }));
            let i = Rc::clone(&inner);
            let outer = spawn(async move {
                let shielded = shield(&i).await;
                let me = current().expect("outer is a task");
                Ok((shielded, me.cancelling()))
            });
            sleep(secs(1)).await?;
            inner.cancel(Some("stop"));
            let outer_result = outer.join().await;
            Ok((outer_result, inner.try_result()))
        });
        assert_eq!(
            result,
            Ok((
                Ok((Err(Error::Cancelled(None)), 0)),
                Some(Err(Error::Cancelled(Some("stop".to_owned()))))
            ))
        );
    });
}

#[test]
fn uncancel_takes_a_request_back() {
    watchdog_default(|| {
        let result = run(async {
            let me = current().expect("main is a task");
            me.cancel(None);
            me.cancel(None);
            let two = me.cancelling();
            let one = me.uncancel();
            let caught = yield_now().await;
            let zero = me.uncancel();
            let floor = me.uncancel();
            Ok((two, one, caught, zero, floor))
        });
        assert_eq!(result, Ok((2, 1, Err(Error::Cancelled(None)), 0, 0)));
    });
}

/// asyncio raises `RuntimeError` for a `reschedule` once the timeout expired or ended.
#[test]
fn a_timeout_that_expired_or_ended_refuses_to_move() {
    watchdog_default(|| {
        let result = run(async {
            let mut refused = Vec::new();
            let mut kept = None;
            let swallowed = timeout_scope(Some(secs(1)), |scope| {
                kept = Some(scope.clone());
                async move {
                    let caught = sleep(secs(10)).await.is_err();
                    Ok((caught, scope.reschedule(Some(secs(20)))))
                }
            })
            .await;
            let scope = kept.expect("the body ran");
            refused.push(scope.reschedule(None));
            let mut clean = None;
            timeout_scope(Some(secs(10)), |scope| {
                clean = Some(scope);
                yield_now()
            })
            .await?;
            let clean = clean.expect("the body ran");
            refused.push(clean.reschedule(None));
            Ok((swallowed, scope.expired(), refused, clean.expired()))
        });
        let over = Err(Error::Misuse(TIMEOUT_OVER));
        assert_eq!(
            result,
            Ok((
                Ok((true, over.clone())),
                true,
                vec![over.clone(), over],
                false
            ))
        );
    });
}

#[test]
fn a_timeout_can_be_rescheduled_from_inside() {
    watchdog_default(|| {
        let result = run(async {
            let r = timeout_scope(Some(secs(1)), |scope| async move {
                scope.reschedule(Some(secs(3)))?;
                sleep(secs(2)).await?;
                scope.reschedule(None)?;
                sleep(secs(5)).await?;
                Ok(scope.when())
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(result, Ok((Ok(None), secs(7))));
    });
}

#[test]
fn wait_for_on_a_slow_task_times_out_and_the_task_sees_the_cancel() {
    watchdog_default(|| {
        let seen = log();
        let s = Rc::clone(&seen);
        let result = run(async move {
            let r = wait_for(secs(1), async move {
                let r = sleep(secs(10)).await;
                note(&s, format!("slow saw {r:?}"));
                r
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(result, Ok((Err(Error::TimedOut), secs(1))));
        assert_eq!(*seen.borrow(), ["slow saw Err(Cancelled(None))"]);
    });
}

#[test]
fn a_groups_failures_are_listed_in_the_order_they_failed_not_in_spawn_order() {
    watchdog_default(|| {
        let result = run(async {
            task_group(|tg| async move {
                // `late` is spawned first but arms its timer a turn after `early` does:
                // the two timers share a deadline, so `early` fails first, in the same
                // turn as `late` (before the group's done callback can cancel `late`).
                tg.spawn("late", async {
                    yield_now().await?;
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("late".into()))
                })?;
                tg.spawn("early", async {
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("early".into()))
                })?;
                Ok(())
            })
            .await
        });
        assert_eq!(
            result,
            Err(Error::Group(vec![
                Error::Failed("early".into()),
                Error::Failed("late".into())
            ]))
        );
    });
}

#[test]
fn nested_groups_with_simultaneous_failures_finish() {
    watchdog_default(|| {
        let result = run(async {
            let r = task_group(|outer| async move {
                outer.spawn("inner-group", async {
                    task_group(|inner| async move {
                        inner.spawn("i1", async {
                            sleep(secs(1)).await?;
                            Err::<(), _>(Error::Failed("i1".into()))
                        })?;
                        sleep(secs(10)).await
                    })
                    .await
                })?;
                outer.spawn("o1", async {
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("o1".into()))
                })?;
                sleep(secs(10)).await
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![
                    Error::Failed("o1".into()),
                    Error::Group(vec![Error::Failed("i1".into())])
                ])),
                secs(1)
            ))
        );
    });
}

#[test]
fn the_owners_cancel_propagates_into_its_group() {
    watchdog_default(|| {
        let result = run(async {
            let flags = Rc::new(Cell::new(0));
            let f = Rc::clone(&flags);
            let owner = spawn(async move {
                task_group(|tg| async move {
                    for name in ["a", "b"] {
                        let f = Rc::clone(&f);
                        tg.spawn(name, async move {
                            let r = sleep(secs(10)).await;
                            if r.is_err() {
                                f.set(f.get() + 1);
                            }
                            r
                        })?;
                    }
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            owner.cancel(Some("shutdown"));
            Ok((owner.join().await, flags.get()))
        });
        assert_eq!(
            result,
            Ok((Err(Error::Cancelled(Some("shutdown".into()))), 2))
        );
    });
}

/// A group child for the owner-drop tests: sleeps `work` seconds and succeeds, or, when
/// cancelled, runs a cleanup that sleeps `cleanup` seconds (itself a cancellation
/// point) and ends cancelled. Every step of it is noted with the virtual time.
fn noted_child(
    name: &'static str,
    work: u64,
    cleanup: u64,
    log: &Log,
    dropped: &DropFlag,
) -> impl Future<Output = Result<(), Error>> + 'static {
    let (log, guard) = (Rc::clone(log), dropped.guard());
    async move {
        let _guard = guard;
        let at = || oneloop_timers::time().as_secs();
        let Err(cancel) = sleep(secs(work)).await else {
            note(&log, format!("{name} ok at {}", at()));
            return Ok(());
        };
        note(&log, format!("{name} cancelled at {}", at()));
        match sleep(secs(cleanup)).await {
            Ok(()) => note(&log, format!("{name} cleanup done at {}", at())),
            Err(_) => note(&log, format!("{name} cleanup cut at {}", at())),
        }
        Err(cancel)
    }
}

#[test]
fn an_aborted_owner_cancels_its_groups_children_and_they_clean_up_on_later_turns() {
    watchdog_default(|| {
        let log = log();
        let (a, b) = (DropFlag::new(), DropFlag::new());
        let (l, fa, fb) = (Rc::clone(&log), a.clone(), b.clone());
        let children = Rc::new(RefCell::new(Vec::new()));
        let kids = Rc::clone(&children);
        let result = run(async move {
            let l2 = Rc::clone(&l);
            let owner = spawn(async move {
                task_group(|tg| async move {
                    let a = tg.spawn("a", noted_child("a", 10, 1, &l2, &fa))?;
                    let b = tg.spawn("b", noted_child("b", 10, 1, &l2, &fb))?;
                    kids.borrow_mut().extend([a.task_ref(), b.task_ref()]);
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            owner.abort();
            let ended = owner.join().await;
            let kids = children.borrow().clone();
            // The owner is gone at once; its children are cancelled, not finished.
            note(
                &l,
                format!(
                    "owner {ended:?} at {}; children done {:?}, cancelling {:?}",
                    oneloop_timers::time().as_secs(),
                    kids.iter().map(|t| t.is_done()).collect::<Vec<_>>(),
                    kids.iter().map(|t| t.cancelling()).collect::<Vec<_>>(),
                ),
            );
            // Long past the 10 s a child left running would have slept.
            sleep(secs(30)).await?;
            let ends: Vec<(bool, bool)> = kids
                .iter()
                .map(|t| (t.is_done(), t.is_cancelled()))
                .collect();
            let left: Vec<String> = oneloop_cancel::all_tasks()
                .iter()
                .map(|t| t.name().to_owned())
                .collect();
            Ok((ends, left))
        });
        assert_eq!(
            result,
            Ok((vec![(true, true), (true, true)], vec!["main".to_owned()]))
        );
        assert_eq!(
            *log.borrow(),
            [
                // The drop queued the children's steps, in spawn order, before the
                // owner's end woke `main`.
                "a cancelled at 1",
                "b cancelled at 1",
                "owner Err(Cancelled(None)) at 1; children done [false, false], cancelling [1, 1]",
                "a cleanup done at 2",
                "b cleanup done at 2",
            ]
        );
        assert_eq!((a.drops(), b.drops()), (1, 1));
    });
}

#[test]
fn an_owner_aborted_before_its_groups_first_poll_leaves_nothing_behind() {
    watchdog_default(|| {
        let ran = Rc::new(Cell::new(false));
        let r = Rc::clone(&ran);
        let result = run(async move {
            let owner = spawn(async move {
                task_group(|tg| async move {
                    r.set(true);
                    tg.spawn("never", async { Ok(()) })?;
                    Ok(())
                })
                .await
            });
            owner.abort();
            let ended = owner.join().await;
            yield_now().await?;
            let left = oneloop_cancel::all_tasks().len();
            Ok((ended, left))
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), 1)));
        assert!(!ran.get(), "the body never ran");
    });
}

#[test]
fn an_owner_aborted_while_its_groups_body_runs_cancels_the_children_spawned_so_far() {
    watchdog_default(|| {
        let log = log();
        let (a, body) = (DropFlag::new(), DropFlag::new());
        let (l, fa, fbody) = (Rc::clone(&log), a.clone(), body.clone());
        let result = run(async move {
            let l2 = Rc::clone(&l);
            let owner = spawn(async move {
                task_group(|tg| async move {
                    let _body = fbody.guard();
                    tg.spawn("a", noted_child("a", 10, 1, &l2, &fa))?;
                    sleep(secs(100)).await?;
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            owner.abort();
            let ended = owner.join().await;
            sleep(secs(30)).await?;
            Ok(ended)
        });
        assert_eq!(result, Ok(Err(Error::Cancelled(None))));
        assert_eq!(*log.borrow(), ["a cancelled at 1", "a cleanup done at 2"]);
        assert_eq!((a.drops(), body.drops()), (1, 1));
    });
}

/// The failures nobody will read once a group's owner is gone: the one the group held
/// (the owner would have returned it at its exit) and one a child ends with later (its
/// cleanup fails). Each is reported to the loop's exception handler, once.
#[test]
fn an_aborted_owners_group_reports_the_failures_nobody_will_read() {
    watchdog_default(|| {
        let (mut event_loop, reports) = reporting_loop(timed);
        let (main, _task) = task_future("main", async {
            let owner = spawn_named("owner", async {
                task_group(|tg| async move {
                    // Cancelled by the failure at 1; its cleanup fails at 3.
                    tg.spawn("slow", async {
                        if sleep(secs(10)).await.is_err() {
                            let _ = oneloop_timers::sleep(secs(2)).await;
                            return Err(Error::Failed("cleanup failed".into()));
                        }
                        Ok(())
                    })?;
                    tg.spawn("bad", async {
                        sleep(secs(1)).await?;
                        Err::<(), _>(Error::Failed("boom".into()))
                    })?;
                    Ok(())
                })
                .await
            });
            sleep(secs(2)).await?;
            owner.abort();
            let _ = owner.join().await;
            sleep(secs(30)).await
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        assert_eq!(
            *reports.borrow(),
            [
                "exception was never retrieved at 2 (owner): failed: boom",
                "exception was never retrieved at 3 (slow): failed: cleanup failed",
            ]
        );
    });
}

/// A child that fails in the very turn its owner is dropped: its step ran, so it is
/// done, but its done callbacks (the group's bookkeeping among them) are only queued,
/// so the group has not seen the failure. The drop queues a report behind those
/// callbacks: the failure is reported once, under the child's name.
#[test]
fn a_child_that_failed_in_the_turn_its_owner_is_dropped_is_reported_once() {
    watchdog_default(|| {
        let (mut event_loop, reports) = reporting_loop(timed);
        let (main, _task) = task_future("main", async move {
            let owner = Rc::new(spawn_named("owner", async move {
                task_group(|tg| async move {
                    tg.spawn("bad", async {
                        sleep(secs(1)).await?;
                        Err::<(), _>(Error::Failed("boom".into()))
                    })?;
                    Ok(())
                })
                .await
            }));
            // Turn 2 runs the owner's body, turn 3 the child's first step, which
            // starts its sleep. The abort's timer starts after it: at 1 s the child's
            // waker runs first and queues its step, then the abort queues the owner's
            // step behind it. So the owner's future is dropped right after the child
            // failed, before the child's done callbacks run.
            yield_now().await?;
            yield_now().await?;
            let o = Rc::clone(&owner);
            oneloop_timers::call_later(secs(1), move || {
                o.abort();
            });
            sleep(secs(2)).await?;
            let ended = owner.join().await;
            assert_eq!(ended, Err(Error::Cancelled(None)));
            sleep(secs(30)).await
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        assert_eq!(
            *reports.borrow(),
            ["exception was never retrieved at 1 (bad): failed: boom"]
        );
    });
}

#[test]
fn an_owner_aborted_while_its_group_cancels_after_a_failure_cancels_no_child_twice() {
    watchdog_default(|| {
        let log = log();
        let a = DropFlag::new();
        let (l, fa) = (Rc::clone(&log), a.clone());
        let kept = Rc::new(RefCell::new(None));
        let k = Rc::clone(&kept);
        let result = run(async move {
            let l2 = Rc::clone(&l);
            let owner = spawn(async move {
                task_group(|tg| async move {
                    let a = tg.spawn("a", noted_child("a", 10, 5, &l2, &fa))?;
                    *k.borrow_mut() = Some((tg.clone(), a.task_ref()));
                    tg.spawn("bad", async {
                        sleep(secs(1)).await?;
                        Err::<(), _>(Error::Failed("boom".into()))
                    })?;
                    Ok(())
                })
                .await
            });
            sleep(secs(2)).await?;
            owner.abort();
            let ended = owner.join().await;
            let (tg, a) = kept.borrow_mut().take().expect("kept");
            let refused = tg.spawn("late", async { Ok(()) }).map(|_| ());
            let cancelling = a.cancelling();
            sleep(secs(30)).await?;
            Ok((ended, refused, cancelling, a.is_cancelled()))
        });
        // `a` keeps the one request of the failure: its cleanup runs to its end.
        assert_eq!(
            result,
            Ok((
                Err(Error::Cancelled(None)),
                Err(Error::Misuse(GROUP_SHUTTING_DOWN)),
                1,
                true
            ))
        );
        assert_eq!(*log.borrow(), ["a cancelled at 1", "a cleanup done at 6"]);
        assert_eq!(a.drops(), 1);
    });
}

#[test]
fn an_aborted_owner_cancels_a_child_already_cleaning_up_once_more() {
    watchdog_default(|| {
        let log = log();
        let (c, d) = (DropFlag::new(), DropFlag::new());
        let (l, fc, fd) = (Rc::clone(&log), c.clone(), d.clone());
        let kept = Rc::new(RefCell::new(None));
        let k = Rc::clone(&kept);
        let result = run(async move {
            let l2 = Rc::clone(&l);
            let owner = spawn(async move {
                task_group(|tg| async move {
                    let c = tg.spawn("c", noted_child("c", 10, 5, &l2, &fc))?;
                    tg.spawn("d", noted_child("d", 10, 1, &l2, &fd))?;
                    *k.borrow_mut() = Some(c.task_ref());
                    Ok(())
                })
                .await
            });
            sleep(secs(1)).await?;
            let c = kept.borrow_mut().take().expect("kept");
            // `c` is cancelled from outside: not a failure, the group goes on waiting.
            c.cancel(Some("outside"));
            sleep(secs(1)).await?;
            owner.abort();
            let ended = owner.join().await;
            sleep(secs(30)).await?;
            Ok((ended, c.is_cancelled()))
        });
        // The group's cancel reaches `c` in its cleanup, as asyncio's `_abort` cancels
        // every child not done.
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), true)));
        assert_eq!(
            *log.borrow(),
            [
                "c cancelled at 1",
                "c cleanup cut at 2",
                "d cancelled at 2",
                "d cleanup done at 3",
            ]
        );
        assert_eq!((c.drops(), d.drops()), (1, 1));
    });
}

#[test]
fn closing_the_loop_with_a_group_waiting_drops_the_owner_and_every_child_once() {
    watchdog_default(|| {
        let log = log();
        let (a, b) = (DropFlag::new(), DropFlag::new());
        let (l, fa, fb) = (Rc::clone(&log), a.clone(), b.clone());
        let mut event_loop = oneloop_timers::virtual_time_loop();
        event_loop
            .run_until_complete(async move {
                let owner = spawn(async move {
                    task_group(|tg| async move {
                        tg.spawn("a", noted_child("a", 3600, 1, &l, &fa))?;
                        tg.spawn("b", noted_child("b", 3600, 1, &l, &fb))?;
                        Ok(())
                    })
                    .await
                });
                drop(owner);
                spawn_named("main", async { sleep(secs(1)).await })
                    .join()
                    .await
            })
            .expect("the loop runs")
            .expect("main finishes");
        assert_eq!((a.drops(), b.drops()), (0, 0));
        event_loop.close();
        // No turn runs after close: the children's futures are dropped, not stepped.
        assert_eq!((a.drops(), b.drops()), (1, 1));
        assert!(log.borrow().is_empty(), "{:?}", log.borrow());
    });
}

#[test]
fn a_group_refuses_new_tasks_once_finished_or_shutting_down() {
    watchdog_default(|| {
        let result = run(async {
            let kept = Rc::new(RefCell::new(None));
            let k = Rc::clone(&kept);
            let shutting = task_group(|tg| async move {
                tg.spawn("bad", async { Err::<(), _>(Error::Failed("x".into())) })?;
                *k.borrow_mut() = Some(tg.clone());
                let r = sleep(secs(1)).await;
                let late = tg.spawn("late", async { Ok(()) }).map(|_| ());
                assert!(r.is_err());
                late
            })
            .await;
            let tg = kept.borrow_mut().take().expect("kept");
            let after = tg.spawn("after", async { Ok(()) }).map(|_| ());
            Ok((shutting, after))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Group(vec![
                    Error::Failed("x".into()),
                    Error::Misuse(GROUP_SHUTTING_DOWN)
                ])),
                Err(Error::Misuse(GROUP_FINISHED))
            ))
        );
    });
}

#[test]
fn gather_keeps_argument_order_and_returns_exceptions_in_place() {
    watchdog_default(|| {
        let result = run(async {
            let futures: Vec<Boxed> = vec![
                Box::pin(async {
                    sleep(secs(3)).await?;
                    Ok(1)
                }),
                Box::pin(async {
                    sleep(secs(1)).await?;
                    Err(Error::Failed("two".into()))
                }),
                Box::pin(async {
                    sleep(secs(2)).await?;
                    Ok(3)
                }),
            ];
            gather(futures, true).await
        });
        assert_eq!(
            result,
            Ok(vec![Ok(1), Err(Error::Failed("two".into())), Ok(3)])
        );
        let result = run(async {
            let futures: Vec<Boxed> = vec![
                Box::pin(async {
                    sleep(secs(3)).await?;
                    Ok(1)
                }),
                Box::pin(async {
                    sleep(secs(1)).await?;
                    Err(Error::Failed("two".into()))
                }),
            ];
            let r = gather(futures, false).await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(result, Ok((Err(Error::Failed("two".into())), secs(1))));
    });
}

/// A child that cancels itself ends cancelled while the awaiting task does not.
/// Collecting, the list holds the child's own cancel, message and all (3.11's list
/// holds a new `CancelledError('')`). A child that returns before the others wakes
/// nobody: not collecting, the awaiting task takes one step more, at the failure.
#[test]
fn a_gather_child_cancelled_by_itself_keeps_its_message_and_a_returning_child_wakes_nobody() {
    watchdog_default(|| {
        let gives_up = || -> Boxed {
            Box::pin(async {
                sleep(secs(1)).await?;
                current().expect("a task").cancel(Some("gave up"));
                yield_now().await?;
                Ok(0)
            })
        };
        let result = run(async move {
            let main = current().expect("main is a task");
            let collected = gather(vec![gives_up(), Box::pin(async { Ok(7) })], true).await;
            let before = main.steps();
            let raised = gather(vec![Box::pin(async { Ok(7) }), gives_up()], false).await;
            Ok((collected, raised, main.steps() - before, main.cancelling()))
        });
        let cancel = Error::Cancelled(Some("gave up".into()));
        assert_eq!(
            result,
            Ok((Ok(vec![Err(cancel.clone()), Ok(7)]), Err(cancel), 1, 0))
        );
    });
}

/// Two children fail before the awaiting task's next step: the second fails a turn
/// before the first, whose step runs just before the awaiting task's. The failure that
/// happened first is returned, as 3.11's gather raises the first `_done_callback`'s.
#[test]
fn gather_returns_the_failure_that_happened_first() {
    watchdog_default(|| {
        let result = run(async {
            let fail_after = |yields: u32, text: &'static str| -> Boxed {
                Box::pin(async move {
                    for _ in 0..yields {
                        yield_now().await?;
                    }
                    Err(Error::Failed(text.into()))
                })
            };
            gather(vec![fail_after(2, "first"), fail_after(1, "second")], false).await
        });
        assert_eq!(result, Err(Error::Failed("second".into())));
    });
}

#[test]
fn wait_returns_done_and_pending_as_asked() {
    watchdog_default(|| {
        let result = run(async {
            let tasks: Vec<oneloop_cancel::Task<u64>> = [3, 1, 2]
                .into_iter()
                .map(|n| {
                    spawn(async move {
                        sleep(secs(n)).await?;
                        if n == 2 {
                            return Err(Error::Failed("two".into()));
                        }
                        Ok(n)
                    })
                })
                .collect();
            let first = wait(&tasks, ReturnWhen::FirstCompleted).await?;
            let exception = wait(&tasks, ReturnWhen::FirstException).await?;
            let all = wait(&tasks, ReturnWhen::AllCompleted).await?;
            Ok((first, exception, all, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                (vec![1], vec![0, 2]),
                (vec![1, 2], vec![0]),
                (vec![0, 1, 2], vec![]),
                secs(3)
            ))
        );
    });
}

#[test]
fn wait_and_as_completed_on_a_done_task_suspend_once() {
    watchdog_default(|| {
        let result = run(async {
            let tasks = vec![spawn(async { Ok(7) })];
            yield_now().await?;
            yield_now().await?;
            let done = tasks[0].is_done();
            let called = turn();
            let waited = wait(&tasks, ReturnWhen::AllCompleted).await?;
            let wait_turns = turn() - called;
            let mut completed = AsCompleted::new(tasks);
            let called = turn();
            let (_, value) = completed.next().await.expect("one task")?;
            Ok((done, waited, wait_turns, value?, turn() - called))
        });
        assert_eq!(result, Ok((true, (vec![0], vec![]), 1, 7, 1)));
    });
}

#[test]
fn wait_for_on_a_done_task_takes_no_turn() {
    watchdog_default(|| {
        let result = run(async {
            let task = spawn(async { Ok(7) });
            yield_now().await?;
            yield_now().await?;
            let done = task.is_done();
            let called = turn();
            let value = wait_for(secs(10), task.join()).await?;
            Ok((done, value, turn() - called))
        });
        assert_eq!(result, Ok((true, 7, 0)));
    });
}

#[test]
fn as_completed_yields_in_finishing_order() {
    watchdog_default(|| {
        let result = run(async {
            let tasks = [3u64, 1, 2]
                .into_iter()
                .map(|n| {
                    spawn(async move {
                        sleep(secs(n)).await?;
                        Ok(n)
                    })
                })
                .collect();
            let mut order = Vec::new();
            let mut stream = AsCompleted::new(tasks);
            while let Some(next) = stream.next().await {
                let (index, value) = next?;
                order.push((index, value?));
            }
            Ok(order)
        });
        assert_eq!(result, Ok(vec![(1, 1), (2, 2), (0, 3)]));
    });
}

/// A future that holds `flag`'s guard while it awaits a 5 s stage 5 sleep (no
/// cancellation point), then notes that it got past its await.
fn held_at_an_await(
    flag: &DropFlag,
    past: &Rc<Cell<bool>>,
) -> impl Future<Output = Result<(), Error>> + 'static {
    let (guard, past) = (flag.guard(), Rc::clone(past));
    async move {
        let _guard = guard;
        oneloop_timers::sleep(secs(5)).await;
        past.set(true);
        Ok(())
    }
}

/// The three ways a future waiting at an await is cancelled are one drop: a delivered
/// cancel drops the future its point wraps, an abort drops the task's future, and a
/// select drops its loser. Each drops the waiting future once, at 1 s while it waits,
/// and none of them runs a line past its await.
#[test]
fn a_delivered_cancel_an_abort_and_a_select_drop_the_waiting_future_alike() {
    watchdog_default(|| {
        let result = run(async {
            let mut ends = Vec::new();
            // A delivered cancel: the point drops what it wraps.
            let (flag, past) = (DropFlag::new(), Rc::new(Cell::new(false)));
            let fut = held_at_an_await(&flag, &past);
            let task = spawn(async move { cancellable(fut).await? });
            sleep(secs(1)).await?;
            task.cancel(None);
            let ended = task.join().await;
            ends.push((
                ended.is_err(),
                flag.drops(),
                oneloop_timers::time().as_secs(),
            ));
            let kept = (flag, past);
            // An abort: the task's next step drops its future.
            let (flag, past) = (DropFlag::new(), Rc::new(Cell::new(false)));
            let task = spawn(held_at_an_await(&flag, &past));
            sleep(secs(1)).await?;
            task.abort();
            let ended = task.join().await;
            ends.push((
                ended.is_err(),
                flag.drops(),
                oneloop_timers::time().as_secs(),
            ));
            let aborted = (flag, past);
            // A select: the loser is dropped when the winner finishes.
            let (flag, past) = (DropFlag::new(), Rc::new(Cell::new(false)));
            let selected = select(sleep(secs(1)), held_at_an_await(&flag, &past)).await;
            let dropped = matches!(selected, Selected::First(Ok(()), LoserFate::Dropped));
            ends.push((dropped, flag.drops(), oneloop_timers::time().as_secs()));
            // Long after the 5 s sleeps would have ended.
            sleep(secs(10)).await?;
            let pasts = [kept.1.get(), aborted.1.get(), past.get()];
            let drops = [kept.0.drops(), aborted.0.drops(), flag.drops()];
            Ok((ends, pasts, drops))
        });
        assert_eq!(
            result,
            Ok((
                vec![(true, 1, 1), (true, 1, 2), (true, 1, 3)],
                [false, false, false],
                [1, 1, 1]
            ))
        );
    });
}

#[test]
fn select_drops_the_loser_and_race_cancels_and_awaits_it() {
    watchdog_default(|| {
        let loser = DropFlag::new();
        let (l, seen_loser) = (loser.clone(), loser.clone());
        let result = run(async move {
            let quick = sleep(secs(1));
            let slow = async move {
                let _guard = l.guard();
                sleep(secs(5)).await
            };
            let selected = select(quick, slow).await;
            // Dropped by the time select returns, not later.
            let dropped_by_then = seen_loser.drops();
            Ok((
                matches!(selected, Selected::First(Ok(()), LoserFate::Dropped)),
                dropped_by_then,
            ))
        });
        assert_eq!(result, Ok((true, 1)));
        assert_eq!(loser.drops(), 1);
        let result = run(async {
            let a = spawn(async {
                sleep(secs(1)).await?;
                Ok("a")
            });
            let b = spawn(async {
                let r = sleep(secs(5)).await;
                // Cleanup that awaits, after the cancel.
                sleep(secs(1)).await?;
                r.map(|()| "b")
            });
            let selected = race(a, b).await?;
            Ok((selected, oneloop_timers::time()))
        });
        assert_eq!(
            result,
            Ok((
                Selected::First(
                    Ok("a"),
                    LoserFate::Cancelled(Err(Error::Cancelled(Some("lost the race".into()))))
                ),
                secs(2)
            ))
        );
    });
}

#[test]
fn awaiting_a_handle_twice_gives_the_failure_again_or_a_clear_error() {
    watchdog_default(|| {
        let result = run(async {
            let cancelled = spawn(async { sleep(secs(1)).await });
            yield_now().await?;
            cancelled.cancel(None);
            let once = cancelled.join().await;
            let twice = cancelled.join().await;
            let fine = spawn(async { Ok(5) });
            let first = fine.join().await;
            let second = fine.join().await;
            Ok((once, twice, first, second))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Cancelled(None)),
                Err(Error::Cancelled(None)),
                Ok(5),
                Err(Error::Misuse(RESULT_TAKEN))
            ))
        );
    });
}

#[test]
fn abort_from_another_thread_goes_through_the_thread_safe_queue() {
    watchdog_default(|| {
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll is available");
        let result = event_loop
            .run_until_complete(async {
                spawn(async {
                    let child = spawn(async {
                        // Real time, but the abort ends it long before.
                        sleep(Duration::from_secs(3600)).await
                    });
                    yield_now().await?;
                    let handle = child.abort_handle()?;
                    let thread = std::thread::spawn(move || handle.abort());
                    let result = child.join().await;
                    let sent = thread.join().expect("the thread does not panic");
                    Ok((sent, result))
                })
                .join()
                .await
            })
            .expect("the loop runs");
        assert_eq!(result, Ok((Ok(()), Err(Error::Cancelled(None)))));
    });
}

#[test]
fn abort_releases_the_io_registration_a_pending_accept_held() {
    watchdog_default(|| {
        let mut event_loop = oneloop_io::new_event_loop().expect("epoll is available");
        let result = event_loop
            .run_until_complete(async {
                spawn(async {
                    let io = oneloop_io::Io::current().expect("an I/O loop");
                    let listener =
                        oneloop_io::TcpListener::bind("127.0.0.1:0").expect("a free port");
                    let child = spawn(async move {
                        let _ = listener.accept().await;
                        Ok(())
                    });
                    yield_now().await?;
                    let before = io.registrations();
                    child.abort();
                    let joined = child.join().await;
                    Ok((before, io.registrations(), joined))
                })
                .join()
                .await
            })
            .expect("the loop runs");
        assert_eq!(result, Ok((1, 0, Err(Error::Cancelled(None)))));
    });
}

#[test]
fn a_failure_nobody_reads_is_reported_as_never_retrieved_and_a_read_one_is_not() {
    watchdog_default(|| {
        let (mut event_loop, reports) = reporting_loop(|report| {
            format!("{} ({}): {}", report.message, report.label, report.panic)
        });
        event_loop
            .run_until_complete(async {
                drop(spawn_named("dropped", async {
                    sleep(secs(1)).await?;
                    Err::<(), _>(Error::Failed("lost".into()))
                }));
                let read =
                    spawn_named("read", async { Err::<(), _>(Error::Failed("seen".into())) });
                let _ = read.join().await;
                drop(read); // retrieved above: no report
                let cancelled = spawn_named("cancelled", async { sleep(secs(5)).await });
                oneloop_timers::sleep(secs(2)).await;
                cancelled.cancel(None);
                drop(cancelled);
                oneloop_timers::sleep(secs(1)).await;
            })
            .expect("the loop runs");
        assert_eq!(
            *reports.borrow(),
            ["exception was never retrieved (dropped): failed: lost"]
        );
    });
}

#[test]
fn a_group_childs_failure_is_read_by_the_group_and_not_reported_as_never_retrieved() {
    watchdog_default(|| {
        let (mut event_loop, reports) =
            reporting_loop(|report| format!("{} ({})", report.message, report.label));
        let (main, task) = task_future("main", async {
            // The child's handle is dropped at once: only the group reads its failure,
            // in its done callback, a turn after the child ends.
            let grouped = task_group(|tg| async move {
                tg.spawn("bad", async { Err::<(), _>(Error::Failed("boom".into())) })?;
                sleep(secs(100)).await
            })
            .await;
            // A dropped task whose done callback does not read it is still reported,
            // once that callback has run.
            let unread = spawn_named("unread", async {
                Err::<(), _>(Error::Failed("lost".into()))
            });
            unread.add_done_callback("noticed", || {});
            drop(unread);
            sleep(secs(1)).await?;
            grouped.map(|_| ())
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        assert!(matches!(task.try_result(), Some(Err(Error::Group(_)))));
        assert_eq!(
            *reports.borrow(),
            ["exception was never retrieved (unread)"]
        );
    });
}

#[test]
fn a_dropped_handle_does_not_stop_its_task_and_close_drops_what_is_left() {
    watchdog_default(|| {
        let ran = Rc::new(Cell::new(false));
        let flag = DropFlag::new();
        let (r, f) = (Rc::clone(&ran), flag.clone());
        let mut event_loop = oneloop_timers::virtual_time_loop();
        event_loop
            .run_until_complete(async move {
                let detached = spawn(async move {
                    sleep(secs(1)).await?;
                    r.set(true);
                    Ok(())
                });
                drop(detached);
                let stuck = spawn(async move {
                    let _guard = f.guard();
                    sleep(secs(3600)).await?;
                    Ok(())
                });
                drop(stuck);
                spawn_named("main", async { sleep(secs(2)).await })
                    .join()
                    .await
            })
            .expect("the loop runs")
            .expect("main finishes");
        assert!(
            ran.get(),
            "a task whose handle was dropped still ran to its end"
        );
        assert_eq!(
            flag.drops(),
            0,
            "the unfinished task is still held by the loop"
        );
        event_loop.close();
        assert_eq!(
            flag.drops(),
            1,
            "close dropped the unfinished task's future once"
        );
    });
}

#[test]
fn a_cancelled_wait_passes_no_request_to_the_tasks_it_waits_for() {
    watchdog_default(|| {
        let result = run(async {
            let tasks = Rc::new(vec![spawn(async {
                sleep(secs(2)).await?;
                Ok("still done")
            })]);
            let t = Rc::clone(&tasks);
            let waiter = spawn(async move {
                wait(&t, ReturnWhen::AllCompleted).await?;
                Ok(())
            });
            sleep(secs(1)).await?;
            waiter.cancel(None);
            let waiter_result = waiter.join().await;
            let waited = tasks[0].join().await;
            Ok((
                waiter_result,
                waited,
                tasks[0].is_cancelled(),
                tasks[0].cancelling(),
                oneloop_timers::time(),
            ))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Cancelled(None)),
                Ok("still done"),
                false,
                0,
                secs(2)
            ))
        );
    });
}

#[test]
fn a_timeouts_body_may_await_its_cleanup_before_the_scope_returns() {
    watchdog_default(|| {
        let seen = log();
        let s = Rc::clone(&seen);
        let result = run(async move {
            let r = timeout(secs(1), async move {
                let r = sleep(secs(10)).await;
                sleep(secs(1)).await?;
                note(&s, format!("cleanup done after {r:?}"));
                r
            })
            .await;
            Ok((r, oneloop_timers::time()))
        });
        assert_eq!(result, Ok((Err(Error::TimedOut), secs(2))));
        assert_eq!(*seen.borrow(), ["cleanup done after Err(Cancelled(None))"]);
    });
}

#[test]
fn a_groups_body_runs_in_the_owner_task_and_each_child_in_a_task_of_its_own() {
    watchdog_default(|| {
        let result = run(async {
            let owner = spawn_named("owner", async {
                let (body, child) = task_group(|tg| async move {
                    let body = current()
                        .expect("the body runs in a task")
                        .name()
                        .to_owned();
                    let child = tg.spawn("child", async {
                        Ok(current().expect("a child is a task").name().to_owned())
                    })?;
                    Ok((body, child))
                })
                .await?;
                Ok((body, child.join().await?))
            });
            owner.join().await
        });
        assert_eq!(result, Ok(("owner".to_owned(), "child".to_owned())));
    });
}

/// The name of the task running now, or `"-"` outside every task.
fn current_name() -> String {
    current().map_or_else(|| "-".to_owned(), |task| task.name().to_owned())
}

#[test]
fn two_loops_on_one_thread_each_name_their_own_current_task() {
    watchdog_default(|| {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let mut first = oneloop_offload::new_event_loop().expect("epoll");
        let mut second = oneloop_offload::new_event_loop().expect("epoll");
        // A task of the first loop notes its name at every step, for ever.
        let noted = Rc::clone(&seen);
        first
            .run_until_complete(async move {
                let task = spawn_named("first", async move {
                    loop {
                        noted.borrow_mut().push(current_name());
                        yield_now().await.ok();
                    }
                    #[allow(unreachable_code)]
                    Ok(())
                });
                drop(task);
                // A few of its steps, then the run ends with the task still alive.
                oneloop_core::yield_now().await;
                oneloop_core::yield_now().await;
            })
            .expect("the first run");
        // The second loop's task, and a plain callback beside it.
        let noted = Rc::clone(&seen);
        let in_callback = Rc::clone(&seen);
        second
            .run_until_complete(async move {
                oneloop_core::hooks::with_current(|core| {
                    core.call_soon(move || in_callback.borrow_mut().push(current_name()));
                });
                let task = spawn_named("second", async move {
                    noted.borrow_mut().push(current_name());
                    Ok(())
                });
                task.join().await
            })
            .expect("the second run")
            .expect("the second task");
        seen.borrow_mut().push(current_name());
        // The first loop again: its task goes on, and is still the current one.
        first
            .run_until_complete(oneloop_core::yield_now())
            .expect("the first loop again");
        // Runs of the same name fold into one: how many steps fit in a run is not the point.
        let mut names = seen.borrow().clone();
        names.dedup();
        assert_eq!(
            names,
            ["first", "-", "second", "-", "first"],
            "each step names its own loop's task; a callback and the thread between runs name none"
        );
    });
}

/// A future that panics at its first poll, as a task's body would.
async fn panics(text: &'static str) -> Result<u32, Error> {
    yield_now().await?;
    panic!("{text}");
}

/// A group child whose step panics ends as a failure does (asyncio 3.11's group
/// collects any exception of a child): it leaves the group, the group cancels the other
/// children, and the panic is in the group's error list. Inside a timeout, so that a
/// group left waiting for ever would end timed out, not stall.
#[test]
fn a_panicking_group_child_leaves_its_group_and_the_panic_is_in_its_errors() {
    watchdog_default(|| {
        let seen = log();
        let (sibling_saw, body_saw) = (Rc::clone(&seen), Rc::clone(&seen));
        let result = run(async move {
            timeout(
                Duration::from_millis(200),
                task_group(|tg| async move {
                    tg.spawn("sibling", async move {
                        let slept = sleep(secs(10)).await;
                        note(&sibling_saw, format!("sibling saw {slept:?}"));
                        slept
                    })?;
                    tg.spawn("bad", panics("child boom"))?;
                    // The body waits too: the panic cancels it as well.
                    let slept = sleep(secs(10)).await;
                    note(&body_saw, format!("body saw {slept:?}"));
                    slept
                }),
            )
            .await
        });
        assert_eq!(
            result,
            Err(Error::Group(vec![Error::Panicked("child boom".into())]))
        );
        let mut seen = seen.borrow().clone();
        seen.sort();
        assert_eq!(
            seen,
            [
                "body saw Err(Cancelled(None))",
                "sibling saw Err(Cancelled(None))"
            ]
        );
    });
}

/// A plain task that panics is joined as panicked, not as cancelled.
#[test]
fn a_panicking_task_is_joined_as_panicked() {
    watchdog_default(|| {
        let result = run(async {
            let child = spawn(panics("plain boom"));
            let joined = child.join().await;
            Ok((joined, child.is_cancelled()))
        });
        assert_eq!(
            result,
            Ok((Err(Error::Panicked("plain boom".into())), false))
        );
    });
}

/// `run` with a main that panics: the panic is caught in main's step like any task's,
/// so `run` returns main's result, `Ok(Err(Error::Panicked(..)))`, not a loop error,
/// whether the panic comes in main's first step or after an await; and the first
/// loop is closed, since a second `run` on the thread works.
#[test]
fn run_with_a_panicking_main_returns_the_panic_as_mains_result() {
    watchdog_default(|| {
        async fn at_once() -> Result<u32, Error> {
            panic!("main boom");
        }
        let first = oneloop_cancel::run(at_once());
        assert!(
            matches!(&first, Ok(Err(Error::Panicked(text))) if text == "main boom"),
            "{first:?}"
        );
        let later = oneloop_cancel::run(panics("main boom later"));
        assert!(
            matches!(&later, Ok(Err(Error::Panicked(text))) if text == "main boom later"),
            "{later:?}"
        );
    });
}

/// A gather's or a wait's child that panics is done, with its panic as its failure.
#[test]
fn gather_and_wait_see_a_panicking_child_end_with_its_panic() {
    watchdog_default(|| {
        let result = run(async {
            let futures: Vec<Boxed> = vec![
                Box::pin(async {
                    sleep(secs(1)).await?;
                    Ok(1)
                }),
                Box::pin(panics("gathered boom")),
            ];
            let gathered = gather(futures, true).await?;
            let tasks = [spawn(panics("waited boom"))];
            let waited = wait(&tasks, ReturnWhen::AllCompleted).await?;
            Ok((gathered, waited, tasks[0].join().await))
        });
        assert_eq!(
            result,
            Ok((
                vec![Ok(1), Err(Error::Panicked("gathered boom".into()))],
                (vec![0], vec![]),
                Err(Error::Panicked("waited boom".into()))
            ))
        );
    });
}

/// A child that ends leaves its group at a cost that does not grow with the group:
/// ten thousand children that all end are forgotten at once, where a scan over the
/// children for each one outlasts the limit. The limit, fifteen times what the test
/// takes in a debug build, is on the CPU time of the test's thread: a loaded machine,
/// which gives the thread a fraction of a core, stretches the wall-clock time alone.
#[test]
fn ten_thousand_children_that_end_leave_their_group_quickly() {
    cpu_watchdog(Duration::from_millis(1500), || {
        let result = run(async {
            task_group(|tg| async move {
                for n in 0..10_000u32 {
                    tg.spawn("child", async move { Ok(n) })?;
                }
                Ok(tg.len())
            })
            .await
        });
        assert_eq!(result, Ok(10_000));
    });
}

/// A child that ends frees its place in the group and a later child takes it; the
/// group still cancels its children in the order they were spawned.
#[test]
fn a_group_cancels_in_spawn_order_after_a_child_left() {
    watchdog_default(|| {
        let seen = log();
        let order = Rc::clone(&seen);
        let result = run(async move {
            task_group(|tg| async move {
                let sleeper = |name: &'static str| {
                    let order = Rc::clone(&order);
                    async move {
                        let slept = sleep(secs(10)).await;
                        note(&order, name);
                        slept
                    }
                };
                tg.spawn("a", sleeper("a"))?;
                tg.spawn("b", async { Ok(()) })?;
                tg.spawn("c", sleeper("c"))?;
                // b ends and leaves the group before d is spawned.
                sleep(secs(1)).await?;
                tg.spawn("d", sleeper("d"))?;
                tg.spawn("bad", async { Err::<(), _>(Error::Failed("bad".into())) })?;
                Ok(())
            })
            .await
        });
        assert_eq!(result, Err(Error::Group(vec![Error::Failed("bad".into())])));
        assert_eq!(*seen.borrow(), ["a", "c", "d"]);
    });
}
