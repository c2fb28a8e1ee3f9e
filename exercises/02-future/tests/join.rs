//! Exercise 4: joining two futures, and pinning (chapter 2.6).

use std::future::{Future, Ready, ready};
use std::marker::{PhantomData, PhantomPinned};
use std::panic::{self, AssertUnwindSafe};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};

use crate::common::{gate, yield_times};
use ex02_future::{Join, join};
use oneloop_coroutine::yield_now;
use oneloop_testkit::{CountingWaker, PollCounter, panic_text, watchdog_default};

/// Polls `fut` with a counting waker until it is ready; returns the output and the polls.
fn run<F: Future>(fut: F) -> (F::Output, usize) {
    let counter = CountingWaker::new();
    let mut fut = pin!(fut);
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(out) = counter.with_context(|cx| fut.as_mut().poll(cx)) {
            return (out, polls);
        }
        assert!(counter.wakes() > 0, "Pending without a wake arranged");
    }
}

#[test]
fn ex4_two_ready_futures_join_in_one_poll() {
    watchdog_default(|| {
        assert_eq!(run(join(ready(1), ready("a"))), ((1, "a"), 1));
    });
}

#[test]
fn ex4_only_the_side_not_done_is_polled_again() {
    watchdog_default(|| {
        let a = PollCounter::new(ready('a'));
        let b = PollCounter::new(yield_times(3));
        let (a_polls, b_polls) = (a.count_handle(), b.count_handle());
        let (out, polls) = run(join(a, b));
        assert_eq!(out, ('a', ()));
        assert_eq!(polls, 4);
        assert_eq!(
            a_polls.get(),
            1,
            "a finished on the first poll: never polled again"
        );
        assert_eq!(b_polls.get(), 4);
    });
}

#[test]
fn ex4_pending_until_both_sides_are_done() {
    watchdog_default(|| {
        let (open_a, a) = gate::<u8>();
        let (open_b, b) = gate::<&str>();
        let b = PollCounter::new(b);
        let b_polls = b.count_handle();
        let counter = CountingWaker::new();
        let mut joined = pin!(join(a, b));
        let mut poll = || counter.with_context(|cx| joined.as_mut().poll(cx));

        assert_eq!(poll(), Poll::Pending);
        open_b.open("b");
        assert_eq!(counter.wakes(), 1, "b's wake reaches the join's caller");
        assert_eq!(poll(), Poll::Pending, "a is not done yet");
        open_a.open(7);
        assert_eq!(counter.wakes(), 2);
        assert_eq!(poll(), Poll::Ready((7, "b")));
        assert_eq!(
            b_polls.get(),
            2,
            "b: once pending, once ready, then left alone"
        );
    });
}

#[test]
fn ex4_async_blocks_that_borrow_across_await_can_be_joined() {
    watchdog_default(|| {
        // Each async block keeps a reference into its own state across an await: it is
        // !Unpin, and only a pinned Join may poll it.
        let left = async {
            let word = String::from("pinned");
            let borrowed = &word;
            yield_times(2).await;
            borrowed.len()
        };
        let right = async {
            let total = [1, 2, 3];
            let slice = &total[..];
            yield_times(1).await;
            slice.iter().sum::<i32>()
        };
        let (out, _) = run(join(left, right));
        assert_eq!(out, (6, 6));
    });
}

#[test]
fn ex4_polling_a_finished_join_panics() {
    watchdog_default(|| {
        let counter = CountingWaker::new();
        let mut joined = join(ready(1), ready(2));
        let mut joined = Pin::new(&mut joined);
        let first = counter.with_context(|cx| joined.as_mut().poll(cx));
        assert_eq!(first, Poll::Ready((1, 2)));
        let again = panic::catch_unwind(AssertUnwindSafe(|| {
            counter.with_context(|cx| joined.as_mut().poll(cx))
        }));
        let message = match again {
            Ok(poll) => panic!("a second poll after Ready must panic; it returned {poll:?}"),
            Err(payload) => panic_text(payload.as_ref()),
        };
        assert!(
            message.contains("polled after it resolved"),
            "the panic message must contain \"polled after it resolved\" \
             (e.g. \"a Join was polled after it resolved\"); it was {message:?}"
        );
    });
}

/// A future that is ready at once and is not `Unpin`.
struct Pinned(PhantomPinned);

impl Future for Pinned {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

/// Tells `Unpin` types from the others at run time: the inherent method wins when it
/// applies, otherwise the trait's default answers.
struct UnpinProbe<T>(PhantomData<T>);

trait NotUnpin {
    fn is_unpin(&self) -> bool {
        false
    }
}

impl<T> NotUnpin for UnpinProbe<T> {}

impl<T: Unpin> UnpinProbe<T> {
    fn is_unpin(&self) -> bool {
        true
    }
}

fn probe<T>() -> UnpinProbe<T> {
    UnpinProbe(PhantomData)
}

#[test]
fn ex4_join_is_unpin_exactly_when_both_sides_are() {
    fn unpin<T: Unpin>() {}
    unpin::<Join<Ready<u8>, Ready<u8>>>();
    // A `!Unpin` side, on either side, makes the Join `!Unpin` too.
    assert!(probe::<Join<Ready<u8>, Ready<u8>>>().is_unpin());
    assert!(!probe::<Join<Pinned, Ready<u8>>>().is_unpin());
    assert!(!probe::<Join<Ready<u8>, Pinned>>().is_unpin());
    // A Join of two Unpin futures can be polled through Pin::new, without pinning.
    watchdog_default(|| {
        let counter = CountingWaker::new();
        let mut joined = join(ready(1), yield_now());
        let first = counter.with_context(|cx| Pin::new(&mut joined).poll(cx));
        assert_eq!(first, Poll::Pending);
        let second = counter.with_context(|cx| Pin::new(&mut joined).poll(cx));
        assert_eq!(second, Poll::Ready((1, ())));
    });
}
