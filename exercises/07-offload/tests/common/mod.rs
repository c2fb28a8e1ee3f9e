//! Instruments the stage 7 tests share.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc::{Receiver, RecvError};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use ex07_offload::ThreadPool;

/// The watchdog limit of every stage 7 test. A correct solution finishes each of them
/// in well under a second; an unfinished hole that leaves a thread waiting (a callback
/// that never arrives, a job that never runs) then fails within seconds, not ten.
pub const LIMIT: Duration = Duration::from_secs(3);

/// Receives what a job sends. A job the pool dropped without running it (its worker
/// thread died outside any job, as an unwritten worker loop does) drops its sender:
/// this then fails at once, showing the pool with the worker's panic in its phase.
pub fn from_job<T>(rx: &Receiver<T>, pool: &ThreadPool) -> T {
    match rx.recv() {
        Ok(value) => value,
        Err(RecvError) => panic!("the pool dropped a job without running it: {pool:?}"),
    }
}

/// A one-way flag that a task can await; `set` may be called from any thread.
#[derive(Clone, Default)]
pub struct Signal {
    state: Arc<Mutex<(bool, Option<Waker>)>>,
}

impl Signal {
    /// Sets the flag and wakes the waiting task (on whatever thread calls it).
    pub fn set(&self) {
        let waker = {
            let mut state = self.state.lock().unwrap();
            state.0 = true;
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether the flag is set.
    pub fn is_set(&self) -> bool {
        self.state.lock().unwrap().0
    }

    /// A future that resolves once the flag is set.
    pub fn wait(&self) -> WaitSignal {
        WaitSignal {
            signal: self.clone(),
        }
    }
}

/// The future of [`Signal::wait`].
pub struct WaitSignal {
    signal: Signal,
}

impl Future for WaitSignal {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.signal.state.lock().unwrap();
        if state.0 {
            Poll::Ready(())
        } else {
            state.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// A future that is pending once: on its first poll it hands its waker to `send`, and
/// it is ready on the next poll.
pub struct WakeFromElsewhere<S: FnMut(Waker)> {
    pub send: S,
    pub polled: bool,
}

impl<S: FnMut(Waker) + Unpin> Future for WakeFromElsewhere<S> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.polled {
            return Poll::Ready(());
        }
        self.polled = true;
        (self.send)(cx.waker().clone());
        Poll::Pending
    }
}
