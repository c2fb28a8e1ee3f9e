//! Exercise 3 (chapter 1.4): `poll` is `resume` with a `Context`; what `async fn`
//! compiles to, and what a ready `await` costs: no extra poll at all.

use std::future::{Future, ready};
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Poll, Waker};

use ex01_coroutine::{
    AsFuture, CoError, Coroutine, Resume, Resumed, Step, SumTwo, YieldNow, yield_now,
};
use oneloop_testkit::{CountingWaker, PollCounter, panic_text, watchdog_default};

/// Polls `future` once with a waker that counts into `waker`.
fn poll_once<F: Future + Unpin>(future: &mut F, waker: &CountingWaker) -> Poll<F::Output> {
    waker.with_context(|cx| Pin::new(future).poll(cx))
}

/// A coroutine in the shape a future has: its input is the poll's waker.
///
/// ```python
/// def answer(pause):
///     if pause:
///         yield            # not ready: suspend once (after arranging to be woken)
///     return 42
/// ```
struct Answer {
    pause: bool,
    state: AnswerState,
}

enum AnswerState {
    Unresumed,
    Suspend0,
    Returned,
}

fn answer(pause: bool) -> AsFuture<Answer> {
    AsFuture::new(Answer {
        pause,
        state: AnswerState::Unresumed,
    })
}

impl Coroutine for Answer {
    type Input = Waker;
    type Yield = ();
    type Return = u64;
    type Error = String;

    fn resume(&mut self, input: Resume<Waker, String>) -> Resumed<(), u64, String> {
        let state = std::mem::replace(&mut self.state, AnswerState::Returned);
        match (state, input) {
            (AnswerState::Returned, _) => Err(CoError::ResumedAfterCompletion),
            (_, Resume::Throw(error)) => Err(CoError::Raised(error)),
            (AnswerState::Unresumed, Resume::Send(waker)) if self.pause => {
                // The rule every future follows: wake before yielding, or be forgotten.
                waker.wake();
                self.state = AnswerState::Suspend0;
                Ok(Step::Yielded(()))
            }
            (_, Resume::Send(_)) => Ok(Step::Complete(42)),
        }
    }
}

/// Raises on its first resume.
struct Refuse;

impl Coroutine for Refuse {
    type Input = Waker;
    type Yield = ();
    type Return = u64;
    type Error = String;

    fn resume(&mut self, _input: Resume<Waker, String>) -> Resumed<(), u64, String> {
        Err(CoError::Raised("refused".to_owned()))
    }
}

#[test]
fn ex3_a_coroutine_that_completes_at_once_is_ready_on_the_first_poll() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let mut future = PollCounter::new(answer(false));
        let polls = future.count_handle();
        assert_eq!(poll_once(&mut future, &waker), Poll::Ready(Ok(42)));
        assert_eq!(polls.get(), 1);
        assert_eq!(waker.wakes(), 0);
    });
}

#[test]
fn ex3_a_yield_is_pending_and_the_coroutine_gets_the_polls_waker() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let mut future = PollCounter::new(answer(true));
        let polls = future.count_handle();
        assert_eq!(poll_once(&mut future, &waker), Poll::Pending);
        assert_eq!(waker.wakes(), 1, "the coroutine woke the waker it was sent");
        assert_eq!(poll_once(&mut future, &waker), Poll::Ready(Ok(42)));
        assert_eq!(polls.get(), 2);
        assert_eq!(waker.live_wakers(), 0, "no waker is kept after completion");
    });
}

#[test]
fn ex3_an_error_the_coroutine_raises_is_the_futures_output() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let mut future = AsFuture::new(Refuse);
        assert_eq!(
            poll_once(&mut future, &waker),
            Poll::Ready(Err("refused".to_owned()))
        );
    });
}

#[test]
fn ex3_polling_after_completion_panics_like_an_async_fn() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let mut future = answer(false);
        assert_eq!(poll_once(&mut future, &waker), Poll::Ready(Ok(42)));
        let again = panic::catch_unwind(AssertUnwindSafe(|| poll_once(&mut future, &waker)));
        let message = match again {
            Ok(poll) => panic!("a second poll after Ready must panic; it returned {poll:?}"),
            Err(payload) => panic_text(payload.as_ref()),
        };
        assert!(
            message.contains("polled after completion"),
            "the panic message must contain \"polled after completion\" \
             (e.g. \"`AsFuture` polled after completion\"); it was {message:?}"
        );
    });
}

async fn inner() -> u64 {
    answer(false).await.expect("answer does not raise") + 1
}

async fn middle() -> u64 {
    inner().await + 1
}

async fn outer() -> u64 {
    middle().await + 1
}

#[test]
fn ex3_three_nested_ready_awaits_complete_in_one_poll() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let mut future = PollCounter::new(outer());
        let polls = future.count_handle();
        assert_eq!(poll_once(&mut future, &waker), Poll::Ready(45));
        // outer -> middle -> inner -> answer: each await was a plain call.
        assert_eq!(polls.get(), 1);
        assert_eq!(waker.wakes(), 0);
    });
}

async fn suspends_once_deep_down() -> u64 {
    async fn leaf() -> u64 {
        answer(true).await.expect("answer does not raise")
    }
    async fn mid() -> u64 {
        leaf().await
    }
    mid().await
}

#[test]
fn ex3_one_real_suspension_costs_exactly_one_more_poll() {
    watchdog_default(|| {
        let waker = CountingWaker::new();
        let mut future = PollCounter::new(suspends_once_deep_down());
        let polls = future.count_handle();
        assert_eq!(poll_once(&mut future, &waker), Poll::Pending);
        assert_eq!(waker.wakes(), 1);
        assert_eq!(poll_once(&mut future, &waker), Poll::Ready(42));
        assert_eq!(polls.get(), 2);
    });
}

// The hand-written `SumTwo` against the compiler's own lowering of the same `async fn`.

async fn sum_two_compiled(a: impl Future<Output = u64>, b: impl Future<Output = u64>) -> u64 {
    let x = a.await;
    let y = b.await;
    x + y
}

fn slow(value: u64) -> Pin<Box<dyn Future<Output = u64> + Send>> {
    Box::pin(async move {
        yield_now().await;
        value
    })
}

/// Polls to completion with a counting waker; returns (output, polls, wakes).
fn run<F: Future + Unpin>(future: F) -> (F::Output, usize, usize) {
    let waker = CountingWaker::new();
    let mut future = PollCounter::new(future);
    let polls = future.count_handle();
    loop {
        if let Poll::Ready(output) = poll_once(&mut future, &waker) {
            return (output, polls.get(), waker.wakes());
        }
        assert!(polls.get() < 100, "never finished");
    }
}

#[test]
fn ex3_sum_two_of_ready_futures_is_ready_in_one_poll() {
    watchdog_default(|| {
        assert_eq!(run(SumTwo::new(ready(2), ready(3))), (5, 1, 0));
        assert_eq!(
            run(Box::pin(sum_two_compiled(ready(2), ready(3)))),
            (5, 1, 0)
        );
    });
}

#[test]
fn ex3_sum_two_suspends_exactly_where_the_async_fn_does() {
    watchdog_default(|| {
        for (a_slow, b_slow) in [(false, true), (true, false), (true, true)] {
            let make = |slow_one: bool, value: u64| {
                if slow_one {
                    slow(value)
                } else {
                    Box::pin(ready(value)) as Pin<Box<dyn Future<Output = u64> + Send>>
                }
            };
            let by_hand = run(SumTwo::new(make(a_slow, 2), make(b_slow, 3)));
            let compiled = run(Box::pin(sum_two_compiled(make(a_slow, 2), make(b_slow, 3))));
            assert_eq!(by_hand, compiled, "a slow: {a_slow}, b slow: {b_slow}");
            let suspensions = usize::from(a_slow) + usize::from(b_slow);
            assert_eq!(by_hand, (5, 1 + suspensions, suspensions));
        }
    });
}

#[test]
fn ex3_yield_now_is_pending_once_then_ready() {
    watchdog_default(|| {
        assert_eq!(run(YieldNow::default()), ((), 2, 1));
    });
}
