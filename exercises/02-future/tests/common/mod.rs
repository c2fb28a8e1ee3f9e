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

/// The kernel's `stat` file of the calling thread, so that another thread can watch it.
///
/// Linux only, as oneloop is: `/proc/thread-self` links to `<pid>/task/<tid>`.
pub fn this_thread_stat() -> std::path::PathBuf {
    let link = std::fs::read_link("/proc/thread-self").expect("Linux's /proc is mounted");
    std::path::Path::new("/proc").join(link).join("stat")
}

/// Whether the thread of `stat` sleeps (state `S`), as a thread in `thread::park` does.
///
/// A thread that is running, or runnable and waiting for a core, is `R`; a thread that
/// spins on `poll` never sleeps. This lets a test wake a parked `block_on` only once it
/// has really gone to sleep, with no sleep of its own.
pub fn is_asleep(stat: &std::path::Path) -> bool {
    let text = std::fs::read_to_string(stat).expect("the watched thread is alive");
    // The state is the first field after the command name, which ends with `)`.
    let state = text
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    state == Some("S")
}
