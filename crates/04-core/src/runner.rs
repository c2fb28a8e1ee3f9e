//! `run` and `Runner`: a loop for a whole program, and its shutdown.

use std::fmt;
use std::future::Future;

use crate::{Driver, EventLoop, LoopError, ThreadParker};

// ANCHOR: runner
/// A loop reused across several `run` calls, closed once (asyncio's `Runner`).
pub struct Runner<D: Driver = ThreadParker> {
    event_loop: EventLoop<D>,
}

impl Runner<ThreadParker> {
    /// A runner on a fresh loop with the default driver.
    pub fn new() -> Self {
        Self::with_driver(ThreadParker)
    }
}

impl<D: Driver> Runner<D> {
    /// A runner on a fresh loop parked by `driver`.
    pub fn with_driver(driver: D) -> Self {
        Self {
            event_loop: EventLoop::with_driver(driver),
        }
    }

    /// Runs `future` to completion on this runner's loop (see
    /// [`EventLoop::run_until_complete`]; inside another loop's turn it refuses with
    /// [`LoopError::AnotherLoopRunning`]).
    pub fn run<F: Future + 'static>(&mut self, future: F) -> Result<F::Output, LoopError> {
        self.event_loop.run_until_complete(future)
    }

    /// Closes the loop: leftover tasks are dropped, close hooks run.
    pub fn close(mut self) {
        self.event_loop.close();
    }
}
// ANCHOR_END: runner

impl<D: Driver> Runner<D> {
    /// The runner's loop.
    pub fn event_loop(&self) -> &EventLoop<D> {
        &self.event_loop
    }

    /// The runner's loop, mutably.
    pub fn event_loop_mut(&mut self) -> &mut EventLoop<D> {
        &mut self.event_loop
    }
}

impl Default for Runner<ThreadParker> {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Runner<ThreadParker> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("event_loop", &self.event_loop)
            .finish()
    }
}

// ANCHOR: run
/// Runs `future` on a fresh loop, then closes the loop (asyncio's `asyncio.run`).
///
/// Closing drops every task still alive (Rust cancels by dropping) and runs the close
/// hooks. asyncio's shutdown also finalizes async generators and joins the default
/// executor, each in turns of its own; oneloop has no async generators, and its thread
/// pool (stage 7) shuts down from a close hook, so shutting down costs no turn.
///
/// Called inside a turn of another loop on this thread (from one of its tasks or
/// callbacks), it returns [`LoopError::AnotherLoopRunning`] at once and `future` is
/// dropped unpolled, as `asyncio.run` refuses to run from a running loop.
pub fn run<F: Future + 'static>(future: F) -> Result<F::Output, LoopError> {
    run_with(|_| {}, future)
}

/// Like [`run`], but lets `setup` prepare the fresh loop before its first turn: add an
/// observer, a close hook, an exception handler. `run(main)` is `run_with(|_| {},
/// main)`.
pub fn run_with<F: Future + 'static>(
    setup: impl FnOnce(&mut EventLoop),
    future: F,
) -> Result<F::Output, LoopError> {
    let mut runner = Runner::new();
    setup(runner.event_loop_mut());
    let output = runner.run(future);
    runner.close();
    output
}
// ANCHOR_END: run
