//! Exercise 2: the `uncancel` bookkeeping of a timeout's exit.
//!
//! The tests go through `sleep`, a cancellation point: they need exercise 1 too.

mod common;

use common::{run, secs};
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
        // the timeout takes its own back, one is left. At 1 s only the outer one exists.
        for at in [5, 1] {
            let result = run(async move {
                let child = spawn(async { timeout(secs(5), sleep(secs(10))).await });
                sleep(secs(at)).await?;
                child.cancel(Some("outer"));
                let joined = child.join().await;
                Ok((joined, child.cancelling()))
            });
            assert_eq!(
                result,
                Ok((Err(Error::Cancelled(Some("outer".into()))), 1)),
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
