//! The loop of this stage: the offload layer over timers over epoll.

use std::future::Future;
use std::io;

use oneloop_core::{EventLoop, LoopError, Runner};
use oneloop_io::IoDriver;
use oneloop_timers::TimerDriver;
use oneloop_timers::prelude::TimerMethods;

use crate::OffloadDriver;

// ANCHOR: offload_loop
/// The whole stack so far: offload (this stage) over timers (stage 5) over epoll
/// (stage 6).
pub type OffloadLoop = EventLoop<OffloadDriver<TimerDriver<IoDriver>>>;

/// The driver stack of an [`OffloadLoop`].
pub fn new_driver() -> io::Result<OffloadDriver<TimerDriver<IoDriver>>> {
    Ok(OffloadDriver::new(TimerDriver::new(IoDriver::new()?)))
}

/// A new loop with the whole stack (asyncio's `new_event_loop`), tied to its offload
/// layer: other threads can wake it, and closing it shuts its default pool down.
pub fn new_event_loop() -> io::Result<OffloadLoop> {
    Ok(EventLoop::with_driver(new_driver()?))
}

/// Runs `future` on a fresh [`OffloadLoop`], then closes it (asyncio's `asyncio.run`):
/// closing drops leftover tasks and then, from a close hook, shuts the default pool
/// down, waiting at most [`Offload::shutdown_timeout`](crate::Offload::shutdown_timeout) for its jobs.
///
/// # Panics
///
/// If the kernel refuses an epoll instance or an eventfd.
pub fn run<F: Future + 'static>(future: F) -> Result<F::Output, LoopError> {
    run_with(|_| {}, future)
}

/// Like [`run`], but lets `setup` prepare the fresh loop before its first turn (an
/// observer added there sees turn 1).
///
/// # Panics
///
/// If the kernel refuses an epoll instance or an eventfd.
pub fn run_with<F: Future + 'static>(
    setup: impl FnOnce(&mut OffloadLoop),
    future: F,
) -> Result<F::Output, LoopError> {
    let mut runner = Runner::with_driver(new_driver().expect("epoll and eventfd are available"));
    setup(runner.event_loop_mut());
    let output = runner.run(future);
    runner.close();
    output
}

/// [`run`] with debug mode on from the first turn (`asyncio.run(main, debug=True)`).
///
/// # Panics
///
/// If the kernel refuses an epoll instance or an eventfd.
pub fn run_debug<F: Future + 'static>(future: F) -> Result<F::Output, LoopError> {
    run_with(|event_loop| event_loop.set_debug(true), future)
}
// ANCHOR_END: offload_loop
