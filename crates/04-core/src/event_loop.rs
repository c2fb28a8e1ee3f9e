//! The event loop: a core, a driver, and the loops that run turns.

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;
use std::time::Duration;

use crate::registry::{enter, enter_turn, register, running, unregister};
use crate::{Core, Driver, LayerSnapshot, LoopError, ParkReport, ThreadParker};

// ANCHOR: event_loop
/// A loop: the shared [`Core`] plus the driver stack `D` that parks it.
///
/// Generic over the driver so that later stages wrap [`ThreadParker`] (or any driver)
/// in their own layer without touching this crate; `EventLoop<Box<dyn Driver>>` works
/// too. It dereferences to its [`Core`]: `event_loop.call_soon(..)`, `.spawn(..)`,
/// `.turn()`, `.stop()`.
pub struct EventLoop<D: Driver = ThreadParker> {
    pub(crate) core: Rc<Core>,
    pub(crate) driver: D,
}
// ANCHOR_END: event_loop

/// What a stepper may show between turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Turns begun so far.
    pub turn: u64,
    /// Labels of the queued handles, oldest first.
    pub ready: Vec<String>,
    /// Live tasks.
    pub live_tasks: usize,
    /// What each driver layer holds, outermost first.
    pub layers: Vec<LayerSnapshot>,
}

impl fmt::Debug for EventLoop<ThreadParker> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventLoop")
            .field("core", &self.core)
            .finish_non_exhaustive()
    }
}

impl Default for EventLoop<ThreadParker> {
    fn default() -> Self {
        Self::new()
    }
}

impl EventLoop<ThreadParker> {
    /// A loop with the default driver, owned by the calling thread.
    pub fn new() -> Self {
        Self::with_driver(ThreadParker)
    }
}

impl<D: Driver> Deref for EventLoop<D> {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

impl<D: Driver> EventLoop<D> {
    /// A loop parked by `driver`. The driver's `install` runs here, once.
    pub fn with_driver(mut driver: D) -> Self {
        let core = Core::new();
        driver.install(&core);
        register(&core);
        Self { core, driver }
    }

    /// The shared core (clone the `Rc` to keep it).
    pub fn core(&self) -> &Rc<Core> {
        &self.core
    }

    /// The driver stack.
    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// The driver stack, mutably.
    pub fn driver_mut(&mut self) -> &mut D {
        &mut self.driver
    }

    // ANCHOR: run_once
    /// Runs one turn (asyncio's `_run_once`), with this loop as the current one.
    ///
    /// Refuses at once, as [`check_runnable`](Self::check_runnable) says, when the loop
    /// is closed or another loop is running a turn on this thread.
    pub fn run_once(&mut self) -> Result<(), LoopError> {
        self.check_runnable()?;
        let _current = enter_turn(&self.core);
        self.entered_turn()
    }
    // ANCHOR_END: run_once

    /// One turn, with this loop already entered as the current and running one.
    fn entered_turn(&mut self) -> Result<(), LoopError> {
        self.core.take_foreign_wake()?;
        self.one_turn()
    }

    // ANCHOR: check_runnable
    /// Whether this loop may run now: [`LoopError::Closed`] if it was closed, and
    /// [`LoopError::AnotherLoopRunning`] if this is called from inside a turn of
    /// another loop on this thread — from one of its callbacks or tasks.
    ///
    /// A loop run inside another's turn would hold that loop's thread: every task of
    /// the outer loop waits until the inner one returns, so an inner main that awaits
    /// an outer task would wait for ever. asyncio refuses the same way ("Cannot run
    /// the event loop while another loop is running"). Loops that run one after the
    /// other on one thread, or take turns there, are fine.
    pub fn check_runnable(&self) -> Result<(), LoopError> {
        if self.core.is_closed() {
            return Err(LoopError::Closed);
        }
        match running() {
            Some(other) if other != self.core.id() => Err(LoopError::AnotherLoopRunning),
            _ => Ok(()),
        }
    }
    // ANCHOR_END: check_runnable

    // ANCHOR: park
    /// Parks the driver for one turn. Before waiting with no timeout, checks that
    /// something could still wake the loop; after, checks for a wake from another
    /// thread.
    pub(crate) fn park(&mut self, timeout: Option<Duration>) -> Result<ParkReport, LoopError> {
        // A stall needs nothing queued and nothing registered: only then are the task
        // slots walked (O(live tasks)), so a loop waiting on a timer or a socket pays
        // for two cheap reads per idle park, not a walk.
        if timeout.is_none() {
            // Read the held wakers first: a waker is used before it is dropped.
            // Wakers held elsewhere count only if another thread could call them.
            let held = self.could_stall()
                && self.driver.external_wakes()
                && self.core.any_waker_held_elsewhere();
            self.core.take_foreign_wake()?;
            if !held && self.could_stall() {
                return Err(self.core.stalled());
            }
        }
        let report = self.driver.park(timeout, &self.core.ready);
        self.core.take_foreign_wake()?;
        Ok(report)
    }
    // ANCHOR_END: park

    /// Nothing is queued and the driver holds no registration (no timer, no fd, no job).
    fn could_stall(&self) -> bool {
        self.core.ready.is_empty() && self.driver.registrations() == 0
    }

    // ANCHOR: run_forever
    /// Runs turns until [`stop`](Core::stop) is called (asyncio's `run_forever`): the
    /// turn in which `stop` was called finishes its batch, then this returns. Whatever
    /// the outcome, the stop request is cleared, as asyncio's `finally:
    /// self._stopping = False` clears it, so the loop can run again. Inside another
    /// loop's turn it runs no turn and returns [`LoopError::AnotherLoopRunning`].
    pub fn run_forever(&mut self) -> Result<(), LoopError> {
        let outcome = self.check_runnable().and_then(|()| {
            // Entered once for every turn: nothing but this loop runs between its
            // turns, and no turn can close it (closing takes `&mut self`).
            let _current = enter_turn(&self.core);
            loop {
                self.entered_turn()?;
                if self.core.is_stopping() {
                    break Ok(());
                }
            }
        });
        self.core.take_stopping();
        outcome
    }
    // ANCHOR_END: run_forever

    /// What a stepper may show now: the turn, the queued labels, the layers.
    pub fn snapshot(&self) -> Snapshot {
        let mut layers = Vec::new();
        self.driver.describe(&mut layers);
        Snapshot {
            turn: self.core.turn(),
            ready: self.core.ready.labels(),
            live_tasks: self.core.live_tasks(),
            layers,
        }
    }

    /// Closes the loop: leftover tasks are dropped (cancelled), queued handles dropped,
    /// close hooks run (a layer's hook lets go of what it holds, such as pending
    /// timers), observers dropped. A panic in any of these is reported to the exception
    /// handler and the shutdown goes on. Later runs return [`LoopError::Closed`].
    /// Idempotent; dropping the loop closes it too.
    pub fn close(&mut self) {
        let _current = enter(&self.core);
        self.core.close();
    }
}

impl<D: Driver> Drop for EventLoop<D> {
    fn drop(&mut self) {
        self.close();
        unregister(self.core.id());
    }
}
