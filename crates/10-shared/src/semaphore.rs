//! `Semaphore` and `BoundedSemaphore`: a counter and a queue of wakers.

use std::cell::Cell;
use std::fmt;

use oneloop_cancel::Error;

use crate::bind::LoopBound;
use crate::error::BOUNDED_OVER_RELEASE;
use crate::wait::Wait;
use crate::waiters::WaitQueue;

/// asyncio's `Semaphore`: up to `value` holders at once.
///
/// A release that finds a waiter hands the unit to it directly (the counter does not
/// go up), and a newcomer queues behind waiters that are not cancelled, as with the
/// lock.
pub struct Semaphore {
    value: Cell<usize>,
    waiters: WaitQueue,
    bound: LoopBound,
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semaphore")
            .field("value", &self.value.get())
            .field("waiters", &self.waiters.len())
            .finish()
    }
}

impl Semaphore {
    /// A semaphore with `value` units.
    pub fn new(value: usize) -> Self {
        Self {
            value: Cell::new(value),
            waiters: WaitQueue::default(),
            bound: LoopBound::default(),
        }
    }

    /// The units free now.
    pub fn value(&self) -> usize {
        self.value.get()
    }

    /// Whether an acquire would wait: no unit free, or a waiter that is not cancelled.
    pub fn locked(&self) -> bool {
        self.value.get() == 0 || self.waiters.any_live()
    }

    /// Takes a unit, waiting for one if needed; a cancellation point while it waits.
    pub async fn acquire(&self) -> Result<(), Error> {
        if !self.locked() {
            self.value.set(self.value.get() - 1);
            return Ok(());
        }
        // A waiter that was handed a unit and leaves anyway gives it back. One passed
        // over while it looked cancelled asks again: a unit left free goes to the first
        // live waiter, which may be this one. Leaving either way, a waiter passes on a
        // unit left free: one passed over may have had newcomers queue behind it once
        // its task took the cancel at another await.
        Wait::new(
            &self.waiters,
            &self.bound,
            |woken| {
                if woken {
                    self.value.set(self.value.get() + 1);
                }
                if self.value.get() > 0 {
                    self.wake_up_next();
                }
            },
            || {
                if self.value.get() > 0 {
                    self.wake_up_next();
                }
                false
            },
        )
        .await?;
        if self.value.get() > 0 {
            self.wake_up_next();
        }
        Ok(())
    }

    /// Gives a unit back, and hands it to the first waiter if there is one.
    pub fn release(&self) {
        self.value.set(self.value.get() + 1);
        self.wake_up_next();
    }

    /// Wakes the first waiter that is not done, handing it one unit.
    fn wake_up_next(&self) {
        for waiter in self.waiters.snapshot() {
            if waiter.offer() {
                self.value.set(self.value.get() - 1);
                return;
            }
        }
    }
}

/// asyncio's `BoundedSemaphore`: a [`Semaphore`] whose release above the initial
/// value is `Err(Error::Misuse(BOUNDED_OVER_RELEASE))`.
#[derive(Debug)]
pub struct BoundedSemaphore {
    inner: Semaphore,
    bound_value: usize,
}

impl BoundedSemaphore {
    /// A bounded semaphore with `value` units, never more.
    pub fn new(value: usize) -> Self {
        Self {
            inner: Semaphore::new(value),
            bound_value: value,
        }
    }

    /// The units free now.
    pub fn value(&self) -> usize {
        self.inner.value()
    }

    /// Whether an acquire would wait.
    pub fn locked(&self) -> bool {
        self.inner.locked()
    }

    /// Takes a unit (see [`Semaphore::acquire`]).
    pub async fn acquire(&self) -> Result<(), Error> {
        self.inner.acquire().await
    }

    /// Gives a unit back; an error, changing nothing, if that would exceed the bound.
    pub fn release(&self) -> Result<(), Error> {
        if self.inner.value() >= self.bound_value {
            return Err(Error::Misuse(BOUNDED_OVER_RELEASE));
        }
        self.inner.release();
        Ok(())
    }
}
