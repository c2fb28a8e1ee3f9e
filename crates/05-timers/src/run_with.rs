//! `run` with a setup hook and a debug flag, on a loop with timers.

use std::future::Future;

use oneloop_core::{LoopError, Runner, ThreadParker};

use crate::prelude::TimerMethods;
use crate::{TimerDriver, TimerLoop};

// ANCHOR: run_with
/// Like [`run`](crate::run), but lets `setup` prepare the fresh loop before its first
/// turn: add an observer, a close hook, an exception handler, turn debug mode on.
/// Whatever `setup` adds sees turn 1.
pub fn run_with<F: Future + 'static>(
    setup: impl FnOnce(&mut TimerLoop),
    future: F,
) -> Result<F::Output, LoopError> {
    let mut runner = Runner::with_driver(TimerDriver::new(ThreadParker));
    setup(runner.event_loop_mut());
    let output = runner.run(future);
    runner.close();
    output
}

/// [`run`](crate::run) with debug mode on from the first turn (asyncio's
/// `asyncio.run(main, debug=True)`). `run_with(|l| l.set_debug(false), main)` is
/// `debug=False`: off, whatever `ONELOOP_DEBUG` says.
pub fn run_debug<F: Future + 'static>(future: F) -> Result<F::Output, LoopError> {
    run_with(|event_loop| event_loop.set_debug(true), future)
}
// ANCHOR_END: run_with
