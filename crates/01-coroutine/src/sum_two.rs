//! What an `async fn` compiles to: a state machine whose `poll` is `resume`.

use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll};

// ANCHOR: sum_two
/// Awaits `a`, then `b`, and returns their sum: a hand-written `Future` equal to
///
/// ```rust
/// async fn sum_two(a: impl Future<Output = u64>, b: impl Future<Output = u64>) -> u64 {
///     let x = a.await;      // Suspend0, if `a` is not ready
///     let y = b.await;      // Suspend1, if `b` is not ready
///     x + y
/// }
/// ```
///
/// The inputs must be [`Unpin`] so that this file needs no `unsafe`: a real `async fn`
/// pins its sub-futures in place instead, which is the subject of the next stage.
#[derive(Debug)]
pub struct SumTwo<A, B> {
    state: SumTwoState<A, B>,
}

#[derive(Debug)]
enum SumTwoState<A, B> {
    /// Not polled yet: the arguments only.
    Unresumed { a: A, b: B },
    /// Waiting at `a.await`.
    Suspend0 { a: A, b: B },
    /// Waiting at `b.await`; `a` is gone and its output `x` lives across this await.
    Suspend1 { x: u64, b: B },
    /// Returned.
    Returned,
}
// ANCHOR_END: sum_two

impl<A, B> SumTwo<A, B> {
    /// The future `sum_two(a, b)` would return: nothing runs until it is polled.
    pub fn new(a: A, b: B) -> Self {
        Self {
            state: SumTwoState::Unresumed { a, b },
        }
    }
}

// ANCHOR: sum_two_poll
impl<A, B> Future for SumTwo<A, B>
where
    A: Future<Output = u64> + Unpin,
    B: Future<Output = u64> + Unpin,
{
    type Output = u64;

    /// # Panics
    ///
    /// When polled again after it returned `Ready`, like the future of any `async fn`.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        let this = self.get_mut();
        // One poll runs as many states as are ready: a ready await is no suspension,
        // so the loop goes straight on to the next one within the same poll.
        loop {
            match mem::replace(&mut this.state, SumTwoState::Returned) {
                SumTwoState::Unresumed { mut a, b } | SumTwoState::Suspend0 { mut a, b } => {
                    match Pin::new(&mut a).poll(cx) {
                        // Not ready: remember where we are, and give the thread back.
                        Poll::Pending => {
                            this.state = SumTwoState::Suspend0 { a, b };
                            return Poll::Pending;
                        }
                        // Ready: `a` is dropped here, `x` moves into the next state.
                        Poll::Ready(x) => this.state = SumTwoState::Suspend1 { x, b },
                    }
                }
                SumTwoState::Suspend1 { x, mut b } => match Pin::new(&mut b).poll(cx) {
                    Poll::Pending => {
                        this.state = SumTwoState::Suspend1 { x, b };
                        return Poll::Pending;
                    }
                    Poll::Ready(y) => return Poll::Ready(x + y),
                },
                SumTwoState::Returned => panic!("`SumTwo` polled after completion"),
            }
        }
    }
}
// ANCHOR_END: sum_two_poll
