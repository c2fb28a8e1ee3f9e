//! Small futures the tests share. None of them uses a hole of this stage, so a test of
//! one exercise never fails because another exercise is still a `todo!`.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use oneloop_coroutine::yield_now;

/// Gives the thread back `n` times: stage 1's `yield_now`, awaited `n` times (asyncio's
/// `await sleep(0)`, `n` times). Ready on poll `n + 1`, having woken itself `n` times.
pub async fn yield_times(n: usize) {
    for _ in 0..n {
        yield_now().await;
    }
}

#[derive(Debug)]
struct GateState<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

/// The waiting half of a gate: resolves to the value given to [`Opener::open`].
///
/// A one-value channel for a single waiter, so that the tests of `block_on` and `join`
/// need not wait for exercise 1's `OneShot`.
#[derive(Debug)]
pub struct Gate<T> {
    shared: Arc<Mutex<GateState<T>>>,
}

/// The opening half of a gate; may be sent to another thread.
#[derive(Debug)]
pub struct Opener<T> {
    shared: Arc<Mutex<GateState<T>>>,
}

/// A gate that one waiter waits on until someone opens it with a value.
pub fn gate<T>() -> (Opener<T>, Gate<T>) {
    let shared = Arc::new(Mutex::new(GateState {
        value: None,
        waker: None,
    }));
    (
        Opener {
            shared: Arc::clone(&shared),
        },
        Gate { shared },
    )
}

impl<T> Opener<T> {
    /// Stores the value, then wakes the waiter (after releasing the lock).
    pub fn open(self, value: T) {
        let waker = {
            let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            state.value = Some(value);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Gate<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        match state.value.take() {
            Some(value) => Poll::Ready(value),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
