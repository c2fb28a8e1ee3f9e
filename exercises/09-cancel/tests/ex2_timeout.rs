//! Exercise 2: the `uncancel` bookkeeping of a timeout's exit.
//!
//! The tests go through `sleep`, a cancellation point: they need exercise 1 too.

use crate::common::{run, secs};
use ex09_cancel::{Error, current, sleep, spawn, timeout, timeout_exit, yield_now};
use oneloop_testkit::watchdog_default;

#[test]
fn ex2_an_expired_timeout_gives_timed_out_and_takes_its_request_back() {
    watchdog_default(|| {
        let result = run(async {
            let r = timeout(secs(1), sleep(secs(10))).await;
            let me = current().expect("a task");
            let live = oneloop_timers::Timers::current()
                .expect("a timer loop")
                .live();
            Ok((r, me.cancelling(), oneloop_timers::time(), live))
        });
        assert_eq!(result, Ok((Err(Error::TimedOut), 0, secs(1), 0)));
    });
}

#[test]
fn ex2_an_outer_cancel_before_or_at_the_deadline_stays_a_cancel() {
    watchdog_default(|| {
        // At 5 s the outer cancel and the deadline come in the same sweep: two requests,
        // the timeout takes its own back, one is left. The deadline's came first, while
        // the task slept, so the task sees its message (none), as on 3.11. At 1 s only
        // the outer one exists.
        for (at, seen) in [(5, None), (1, Some("outer".to_owned()))] {
            let result = run(async move {
                let child = spawn(async { timeout(secs(5), sleep(secs(10))).await });
                sleep(secs(at)).await?;
                child.cancel(Some("outer"));
                let joined = child.join().await;
                Ok((joined, child.cancelling()))
            });
            assert_eq!(
                result,
                Ok((Err(Error::Cancelled(seen)), 1)),
                "outer cancel at {at} s"
            );
        }
    });
}

#[test]
fn ex2_the_exit_rules_one_by_one() {
    watchdog_default(|| {
        let result = run(async {
            let me = current().expect("a task");
            let not_expired = timeout_exit(&me, 0, false, Err::<u8, _>(Error::Cancelled(None)));
            me.cancel(None);
            let ours = timeout_exit(&me, 0, true, Err::<u8, _>(Error::Cancelled(None)));
            let after_ours = me.cancelling();
            me.cancel(None);
            me.cancel(None);
            let outer = timeout_exit(&me, 0, true, Err::<u8, _>(Error::Cancelled(None)));
            let after_outer = me.cancelling();
            me.uncancel();
            me.cancel(None);
            let finished_anyway = timeout_exit(&me, 0, true, Ok(7u8));
            // The requests made above are still undelivered: take one here, so that
            // main ends with its value.
            let _ = yield_now().await;
            Ok((
                not_expired,
                ours,
                after_ours,
                outer,
                after_outer,
                finished_anyway,
                me.cancelling(),
            ))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Cancelled(None)),
                Err(Error::TimedOut),
                0,
                Err(Error::Cancelled(None)),
                1,
                Ok(7),
                0
            ))
        );
    });
}

/// Three wrong exits the rules above let through: "time out whenever no request is
/// left" (it must compare with the count at entry: a task that swallowed a cancel
/// earlier enters with one), "time out whenever the count went down to it exactly"
/// (a body that took back more than its own leaves fewer), and "any error of an
/// expired body is a time-out" (only a cancel is; a failure stays a failure).
#[test]
fn ex2_the_exit_compares_with_the_count_at_entry_and_only_a_cancel_times_out() {
    watchdog_default(|| {
        let result = run(async {
            let me = current().expect("a task");
            // One request swallowed earlier and never taken back: entry sees 1.
            me.cancel(None);
            let _ = yield_now().await;
            let entry = me.cancelling();
            me.cancel(None);
            let with_one_at_entry =
                timeout_exit(&me, entry, true, Err::<u8, _>(Error::Cancelled(None)));
            // A body that took back one request more than its own.
            me.cancel(None);
            me.uncancel();
            let fewer_than_at_entry =
                timeout_exit(&me, entry, true, Err::<u8, _>(Error::Cancelled(None)));
            me.cancel(None);
            let failed = timeout_exit(
                &me,
                me.cancelling() - 1,
                true,
                Err::<u8, _>(Error::Failed("cleanup".into())),
            );
            // Leave main with no request pending.
            while me.cancelling() > 0 {
                me.uncancel();
            }
            let _ = yield_now().await;
            Ok((entry, with_one_at_entry, fewer_than_at_entry, failed))
        });
        assert_eq!(
            result,
            Ok((
                1,
                Err(Error::TimedOut),
                Err(Error::TimedOut),
                Err(Error::Failed("cleanup".into()))
            ))
        );
    });
}

/// Two wrong exits for an expired scope with an outer request left: "make a fresh
/// cancel" (the outer cancel's message is lost) and "an outer request left means
/// cancelled" (a body that caught its time-out and finished anyway loses its value).
/// The body's end comes through unchanged; the outer request stays, and the next
/// cancellation point delivers it.
#[test]
fn ex2_with_an_outer_request_left_the_bodys_end_comes_through_unchanged() {
    watchdog_default(|| {
        let result = run(async {
            // The deadline (1 s) cancels the first sleep; the outer cancel (2 s)
            // lands in the cleanup, at a cancellation point.
            let cancelled = spawn(async {
                timeout(secs(1), async {
                    let _ = sleep(secs(10)).await;
                    sleep(secs(5)).await
                })
                .await
            });
            // The same, but the cleanup awaits a stage 5 sleep, no cancellation
            // point: the body finishes with its value, the outer request undelivered.
            let finished = spawn(async {
                let r = timeout(secs(1), async {
                    let _ = sleep(secs(10)).await;
                    oneloop_timers::sleep(secs(5)).await;
                    Ok("finished anyway")
                })
                .await;
                let next = yield_now().await;
                Ok((r, next))
            });
            sleep(secs(2)).await?;
            cancelled.cancel(Some("outer"));
            finished.cancel(Some("outer"));
            Ok((cancelled.join().await, finished.join().await))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Cancelled(Some("outer".into()))),
                Ok((
                    Ok("finished anyway"),
                    Err(Error::Cancelled(Some("outer".into())))
                ))
            ))
        );
    });
}
