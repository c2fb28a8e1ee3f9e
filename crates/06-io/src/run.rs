//! `run` for this stage's loop: timers over epoll, built, run and closed in one call.

use std::future::Future;

use oneloop_core::{LoopError, Runner};
use oneloop_timers::TimerDriver;
use oneloop_timers::prelude::TimerMethods;

use crate::{IoDriver, IoLoop};

// ANCHOR: run
/// Runs `future` on a fresh [`IoLoop`], then closes it (asyncio's `asyncio.run`).
///
/// # Panics
///
/// If the kernel refuses an epoll instance.
pub fn run<F: Future + 'static>(future: F) -> Result<F::Output, LoopError> {
    run_with(|_| {}, future)
}

/// Like [`run`], but lets `setup` prepare the fresh loop before its first turn (an
/// observer added there sees turn 1).
///
/// # Panics
///
/// If the kernel refuses an epoll instance.
pub fn run_with<F: Future + 'static>(
    setup: impl FnOnce(&mut IoLoop),
    future: F,
) -> Result<F::Output, LoopError> {
    let driver = TimerDriver::new(IoDriver::new().expect("epoll is available"));
    let mut runner = Runner::with_driver(driver);
    setup(runner.event_loop_mut());
    let output = runner.run(future);
    runner.close();
    output
}

/// [`run`] with debug mode on from the first turn (`asyncio.run(main, debug=True)`).
///
/// # Panics
///
/// If the kernel refuses an epoll instance.
pub fn run_debug<F: Future + 'static>(future: F) -> Result<F::Output, LoopError> {
    run_with(|event_loop| event_loop.set_debug(true), future)
}
// ANCHOR_END: run
