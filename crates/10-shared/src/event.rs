//! `Event`: a flag whose waiters are all woken at once.

use std::cell::Cell;
use std::fmt;

use oneloop_cancel::Error;

use crate::bind::LoopBound;
use crate::wait::Wait;
use crate::waiters::WaitQueue;

/// asyncio's `Event`: [`set`](Self::set) wakes every waiter in the same call, so all
/// of them run in the next turn; [`wait`](Self::wait) on a set event returns at once.
#[derive(Default)]
pub struct Event {
    value: Cell<bool>,
    waiters: WaitQueue,
    bound: LoopBound,
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("set", &self.value.get())
            .field("waiters", &self.waiters.len())
            .finish()
    }
}

impl Event {
    /// An event not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether it is set.
    pub fn is_set(&self) -> bool {
        self.value.get()
    }

    /// Sets it and wakes every waiter that is not already woken, a cancelled one too:
    /// it sees its cancel first when it runs, and if its task took the cancel at
    /// another await, the wait it comes back to is over.
    pub fn set(&self) {
        if self.value.replace(true) {
            return;
        }
        for waiter in self.waiters.snapshot() {
            if !waiter.is_woken() {
                waiter.wake();
            }
        }
    }

    /// Clears it: later waits block again.
    pub fn clear(&self) {
        self.value.set(false);
    }

    /// Waits until it is set; a cancellation point while it waits.
    pub async fn wait(&self) -> Result<(), Error> {
        if self.value.get() {
            return Ok(());
        }
        Wait::new(&self.waiters, &self.bound, |_| {}, || false).await
    }
}
