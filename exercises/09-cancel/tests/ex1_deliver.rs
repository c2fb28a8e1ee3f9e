//! Exercise 1: delivering a cancel at a cancellation point.

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::{run, secs, turn};
use ex09_cancel::{Error, cancellable, current, deliver, sleep, spawn, yield_now};
use oneloop_testkit::{DropFlag, watchdog_default};

#[test]
fn ex1_a_sleeping_task_sees_the_cancel_at_its_await_in_the_next_turn() {
    watchdog_default(|| {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = Rc::clone(&seen);
        let result = run(async move {
            let s2 = Rc::clone(&s);
            let child = spawn(async move {
                let slept = sleep(secs(10)).await;
                s2.borrow_mut().push((turn(), format!("{slept:?}")));
                slept
            });
            yield_now().await?;
            s.borrow_mut().push((turn(), "cancel".to_owned()));
            child.cancel(Some("stop"));
            child.join().await
        });
        assert_eq!(result, Err(Error::Cancelled(Some("stop".into()))));
        let seen = seen.borrow();
        assert_eq!(
            seen[1].0,
            seen[0].0 + 1,
            "delivered one turn later: {seen:?}"
        );
        assert_eq!(seen[1].1, "Err(Cancelled(Some(\"stop\")))");
    });
}

#[test]
fn ex1_with_no_request_the_inner_output_comes_through() {
    watchdog_default(|| {
        // `deliver` itself, polled with no request waiting: a `cancellable` point
        // would not ask it (the point polls its inner future straight away then).
        let result = run(async {
            let mut inner = Some(Box::pin(async { 41 + 1 }));
            std::future::poll_fn(|cx| deliver(&mut inner, cx)).await
        });
        assert_eq!(result, Ok(42));
    });
}

#[test]
fn ex1_the_inner_future_is_dropped_when_the_request_is_delivered() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let f = flag.clone();
        let result = run(async move {
            let probe = f.clone();
            let child = spawn(async move {
                // A stage 5 sleep is no cancellation point: the request waits.
                oneloop_timers::sleep(secs(1)).await;
                let guard = f.guard();
                let mut point = std::pin::pin!(cancellable(async move {
                    let _guard = guard;
                    Ok::<_, Error>(())
                }));
                // The point is still alive here: only the delivery can have dropped
                // its inner future.
                let delivered = point.as_mut().await;
                Ok((delivered, f.drops()))
            });
            yield_now().await?;
            child.cancel(None);
            let joined = child.join().await;
            Ok((joined, probe.drops()))
        });
        assert_eq!(result, Ok((Ok((Err(Error::Cancelled(None)), 1)), 1)));
    });
}

#[test]
fn ex1_a_request_made_in_this_step_waits_for_the_next() {
    watchdog_default(|| {
        let result = run(async {
            let me = current().expect("main is a task");
            me.cancel(None);
            // Ready at once: no suspension, so no delivery.
            let ready = cancellable(async { 1 }).await;
            // Suspends: the request is delivered when the task resumes.
            let yielded = yield_now().await;
            Ok((ready, yielded))
        });
        assert_eq!(result, Ok((Ok(1), Err(Error::Cancelled(None)))));
    });
}

/// The wrong mechanism "keep the inner future once it is ready": a point that
/// resolved has dropped its inner future (what it held is released at once, while
/// the point itself lives on), and polling the point again is a misuse, not a poll of
/// a finished future.
#[test]
fn ex1_a_resolved_point_has_dropped_its_inner_future_and_a_second_poll_is_misuse() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let f = flag.clone();
        let result = run(async move {
            let guard = f.guard();
            let mut point = std::pin::pin!(cancellable(async move {
                let _guard = guard;
                7
            }));
            let first = point.as_mut().await;
            let drops_after_first = f.drops();
            // The point is still alive: poll it once more, by hand.
            let second = std::future::poll_fn(|cx| point.as_mut().poll(cx)).await;
            Ok((first, drops_after_first, second))
        });
        let (first, drops, second) = result.expect("main ends well");
        assert_eq!(first, Ok(7));
        assert_eq!(
            drops, 1,
            "the inner future is dropped when the point resolves"
        );
        assert!(
            matches!(second, Err(Error::Misuse(_))),
            "a point polled after it resolved: {second:?}"
        );
    });
}

/// The same rule for `deliver` itself: a `cancellable` point polls its inner future
/// straight away while no request waits, so `deliver` is asked only when one might.
/// Called by hand with none waiting, it too drops the inner future once that is ready
/// (`inner` becomes `None`), and a second call is a misuse.
#[test]
fn ex1_deliver_drops_the_inner_future_when_it_is_ready() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let f = flag.clone();
        let result = run(async move {
            let guard = f.guard();
            let mut inner = Some(Box::pin(async move {
                let _guard = guard;
                5
            }));
            let first = std::future::poll_fn(|cx| deliver(&mut inner, cx)).await;
            let dropped = (inner.is_none(), f.drops());
            let second = std::future::poll_fn(|cx| deliver(&mut inner, cx)).await;
            Ok((first, dropped, second))
        });
        let (first, dropped, second) = result.expect("main ends well");
        assert_eq!(first, Ok(5));
        assert_eq!(dropped, (true, 1), "the inner future is dropped when ready");
        assert!(
            matches!(second, Err(Error::Misuse(_))),
            "deliver called after it resolved: {second:?}"
        );
    });
}

/// The wrong mechanism "poll the inner future once more before dropping it": a
/// delivered cancel drops the inner future unpolled. A last poll could take a value
/// from it (a message, a connection) that the drop then loses.
#[test]
fn ex1_a_delivered_cancel_does_not_poll_the_inner_future() {
    watchdog_default(|| {
        let polls = Rc::new(std::cell::Cell::new(0));
        let p = Rc::clone(&polls);
        let result = run(async move {
            let child = spawn(async move {
                // A stage 5 sleep is no cancellation point: the request waits.
                oneloop_timers::sleep(secs(1)).await;
                cancellable(std::future::poll_fn(move |_| {
                    p.set(p.get() + 1);
                    std::task::Poll::Ready(7)
                }))
                .await
            });
            yield_now().await?;
            child.cancel(None);
            child.join().await
        });
        assert_eq!(result, Err(Error::Cancelled(None)));
        assert_eq!(polls.get(), 0, "the inner future was polled");
    });
}

/// The wrong mechanism "there is always a running task": `deliver` polled outside
/// any task (here with no loop at all) has no request to deliver, so it polls the
/// inner future, as a cancellation point does there.
#[test]
fn ex1_deliver_outside_a_task_polls_the_inner_future() {
    watchdog_default(|| {
        let mut inner = Some(Box::pin(async { 3 }));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let polled = deliver(&mut inner, &mut cx);
        assert!(
            matches!(polled, std::task::Poll::Ready(Ok(3))),
            "{polled:?}"
        );
        assert!(inner.is_none(), "the inner future is dropped when ready");
    });
}
