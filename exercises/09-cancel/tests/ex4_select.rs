//! Exercise 4: a two-way select, and what happens to its loser.

use std::cell::Cell;
use std::future::{Future, pending, ready};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use ex09_cancel::{LoserFate, Selected, poll_select};
use oneloop_testkit::{CountingWaker, DropFlag, watchdog_default};

fn boxed<F: Future>(future: F) -> Option<Pin<Box<F>>> {
    Some(Box::pin(future))
}

#[test]
fn ex4_the_first_ready_side_wins_and_the_loser_is_dropped_before_the_result() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let guard = flag.guard();
        let mut first = boxed(ready(1));
        let mut second = boxed(async move {
            let _guard = guard;
            pending::<u8>().await
        });
        let waker = CountingWaker::new();
        let waker = waker.waker();
        let mut cx = Context::from_waker(&waker);
        let outcome = poll_select(&mut first, &mut second, &mut cx);
        assert_eq!(flag.drops(), 1, "the loser was dropped");
        assert!(second.is_none() && first.is_none());
        assert!(matches!(
            outcome,
            Poll::Ready(Selected::First(1, LoserFate::Dropped))
        ));
    });
}

#[test]
fn ex4_the_second_side_wins_when_only_it_is_ready() {
    watchdog_default(|| {
        let mut first = boxed(pending::<u8>());
        let mut second = boxed(ready("b"));
        let waker = CountingWaker::new();
        let waker = waker.waker();
        let mut cx = Context::from_waker(&waker);
        let outcome = poll_select(&mut first, &mut second, &mut cx);
        assert!(matches!(
            outcome,
            Poll::Ready(Selected::Second("b", LoserFate::Dropped))
        ));
        assert!(first.is_none(), "the loser is gone");
    });
}

#[test]
fn ex4_both_ready_the_first_wins_and_neither_ready_is_pending() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let waker = waker.waker();
        let mut cx = Context::from_waker(&waker);
        let (mut a, mut b) = (boxed(ready(1)), boxed(ready(2)));
        assert!(matches!(
            poll_select(&mut a, &mut b, &mut cx),
            Poll::Ready(Selected::First(1, LoserFate::Dropped))
        ));
        let (mut a, mut b) = (boxed(pending::<u8>()), boxed(pending::<u8>()));
        assert!(poll_select(&mut a, &mut b, &mut cx).is_pending());
        assert!(a.is_some() && b.is_some(), "both still wait");
    });
}

#[test]
fn ex4_a_ready_first_side_means_the_second_is_not_polled() {
    watchdog_default(|| {
        // Polling the loser after the winner is ready could take a value from it (a
        // message, a connection) that its drop then loses.
        let polls = Rc::new(Cell::new(0));
        let p = Rc::clone(&polls);
        let mut first = boxed(ready(1));
        let mut second = boxed(std::future::poll_fn(move |_| {
            p.set(p.get() + 1);
            Poll::Ready(2)
        }));
        let waker = CountingWaker::new();
        let waker = waker.waker();
        let mut cx = Context::from_waker(&waker);
        let outcome = poll_select(&mut first, &mut second, &mut cx);
        assert!(matches!(
            outcome,
            Poll::Ready(Selected::First(1, LoserFate::Dropped))
        ));
        assert_eq!(polls.get(), 0, "the loser was never polled");
    });
}

/// The wrong mechanism "a resolved select just stays pending": polled again after it
/// resolved, a select has nothing left to poll, and says so with a panic, rather than
/// leaving its task pending for ever with no waker registered anywhere.
#[test]
fn ex4_a_select_polled_after_it_resolved_panics_instead_of_staying_pending() {
    watchdog_default(|| {
        let (mut first, mut second) = (boxed(ready(1)), boxed(pending::<u8>()));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert!(matches!(
            poll_select(&mut first, &mut second, &mut cx),
            Poll::Ready(Selected::First(1, LoserFate::Dropped))
        ));
        let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            poll_select(&mut first, &mut second, &mut cx).is_ready()
        }));
        let message = again.expect_err("a second poll must panic");
        let text = message
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| message.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(text.contains("polled after it resolved"), "{text}");
    });
}

/// The wrong mechanism "only the loser needs dropping": the winner's future is
/// dropped too when the select resolves, whichever side wins. A future that returned
/// `Ready` may still hold what it used (a `poll_fn` keeps its closure's captures)
/// until it is dropped.
#[test]
fn ex4_the_winners_future_is_dropped_when_the_select_resolves_on_either_side() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let waker = waker.waker();
        let mut cx = Context::from_waker(&waker);
        let winner = |flag: &DropFlag| {
            let guard = flag.guard();
            boxed(std::future::poll_fn(move |_| {
                let _held = &guard;
                Poll::Ready(7u8)
            }))
        };
        let first_wins = DropFlag::new();
        let (mut a, mut b) = (winner(&first_wins), boxed(pending::<u8>()));
        let outcome = poll_select(&mut a, &mut b, &mut cx);
        assert!(matches!(
            outcome,
            Poll::Ready(Selected::First(7, LoserFate::Dropped))
        ));
        assert_eq!(first_wins.drops(), 1, "the first side won and was kept");
        let second_wins = DropFlag::new();
        let (mut a, mut b) = (boxed(pending::<u8>()), winner(&second_wins));
        let outcome = poll_select(&mut a, &mut b, &mut cx);
        assert!(matches!(
            outcome,
            Poll::Ready(Selected::Second(7, LoserFate::Dropped))
        ));
        assert_eq!(second_wins.drops(), 1, "the second side won and was kept");
        assert!(a.is_none() && b.is_none());
    });
}
