//! `Offloaded`: the future a task awaits while its function runs on a worker.
//!
//! Its result arrives in a `Completion`, shared by `Arc` with the job. The job never
//! touches the loop: it hands a callback to `call_soon_threadsafe`, and that callback,
//! run by the loop on its own thread, fills the completion and wakes the awaiting task
//! there. That is asyncio's chain: the `concurrent.futures.Future` of the worker gets
//! its result, its done callback calls `loop.call_soon_threadsafe(_set_state, ...)`,
//! and `_set_state` completes the asyncio future the task awaits. So the task resumes
//! two hops after the worker finished: the injected callback, then the task's step.

use std::fmt;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::OffloadError;

// The runtime's one reading of a panic payload (stage 3's), for the job and the pool.
pub(crate) use oneloop_core::hooks::{drop_payload, panic_message};

/// What an offloaded function gave: its value, or why there is none.
pub type Outcome<T> = Result<T, OffloadError>;

// ANCHOR: completion
/// The states of one offloaded result.
enum Slot<T> {
    /// The job has not finished; the awaiting task's waker, once it has polled.
    Pending(Option<Waker>),
    /// Filled on the loop's thread by the injected callback.
    Done(Outcome<T>),
    /// The future took the outcome.
    Taken,
}

/// Where a worker's result meets the awaiting future.
pub(crate) struct Completion<T> {
    slot: Mutex<Slot<T>>,
}

impl<T> Completion<T> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            slot: Mutex::new(Slot::Pending(None)),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores the outcome and wakes the waiting task. Called by the injected callback,
    /// on the loop's thread, so the wake queues the task's step directly.
    ///
    /// Only the first outcome counts: once the slot is no longer pending, a later one
    /// is dropped (a job answers once, but a `Deliver` that was never marked sent
    /// would answer again from its drop).
    pub(crate) fn complete(&self, outcome: Outcome<T>) {
        let mut slot = self.lock();
        let waker = match &mut *slot {
            Slot::Pending(waker) => waker.take(),
            Slot::Done(_) | Slot::Taken => return,
        };
        *slot = Slot::Done(outcome);
        drop(slot);
        // Woken with the lock released: the wake may run loop code.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}
// ANCHOR_END: completion

/// The states of an [`Offloaded`] future.
enum State<T> {
    /// Submitted: waiting for the completion.
    Waiting(Arc<Completion<T>>),
    /// Could not even be submitted: this error is the outcome.
    Failed(OffloadError),
    /// The outcome was returned.
    Finished,
}

/// The future returned by [`to_thread`](crate::to_thread) and
/// [`run_in_executor`](crate::run_in_executor): resolves to the function's value, or
/// to an [`OffloadError`] (a panic in the function, with its message; a closed loop or
/// pool).
///
/// Dropping it does not stop the job (a thread cannot be cancelled; asyncio cannot
/// either): the job runs on, and its result is dropped when it arrives. The task
/// that dropped it is not woken then.
///
/// # Panics
///
/// If polled again after it returned its outcome (a bug in the caller, as with any
/// future).
pub struct Offloaded<T> {
    state: State<T>,
}

impl<T> Offloaded<T> {
    pub(crate) fn waiting(completion: Arc<Completion<T>>) -> Self {
        Self {
            state: State::Waiting(completion),
        }
    }

    pub(crate) fn failed(error: OffloadError) -> Self {
        Self {
            state: State::Failed(error),
        }
    }
}

// ANCHOR: offloaded_poll
impl<T> Future for Offloaded<T> {
    type Output = Outcome<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome<T>> {
        let this = self.get_mut();
        match mem::replace(&mut this.state, State::Finished) {
            State::Failed(error) => Poll::Ready(Err(error)),
            State::Finished => panic!("Offloaded polled after it returned its outcome"),
            State::Waiting(completion) => {
                let mut slot = completion.lock();
                match mem::replace(&mut *slot, Slot::Taken) {
                    Slot::Done(outcome) => Poll::Ready(outcome),
                    Slot::Pending(_) => {
                        // Keep only the latest waker: the task that polls now waits.
                        *slot = Slot::Pending(Some(cx.waker().clone()));
                        drop(slot);
                        this.state = State::Waiting(completion);
                        Poll::Pending
                    }
                    Slot::Taken => unreachable!("only this future takes the outcome"),
                }
            }
        }
    }
}
// ANCHOR_END: offloaded_poll

impl<T> Unpin for Offloaded<T> {}

impl<T> Drop for Offloaded<T> {
    /// Takes the task's waker back out of the completion: the job runs on, but when it
    /// ends, the task that gave up waiting (a timeout, a cancellation) is not woken
    /// for a result it no longer awaits. (asyncio's `_copy_future_state` likewise
    /// returns at once when the future it would fill is cancelled.)
    fn drop(&mut self) {
        if let State::Waiting(completion) = &self.state {
            let waker = match &mut *completion.lock() {
                Slot::Pending(waker) => waker.take(),
                Slot::Done(_) | Slot::Taken => None,
            };
            // Dropped with the lock released, as every waker here is.
            drop(waker);
        }
    }
}

impl<T> fmt::Debug for Offloaded<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Waiting(_) => "waiting",
            State::Failed(_) => "failed",
            State::Finished => "finished",
        };
        f.debug_struct("Offloaded").field("state", &state).finish()
    }
}
