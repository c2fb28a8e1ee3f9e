//! The loop of this stage: timers over I/O, and its constructor.
//!
//! The driver stack is `TimerDriver<IoDriver>`. A turn parks the timer driver, which
//! sweeps cancelled timers, shortens the timeout to its earliest deadline, and parks the
//! I/O driver in `epoll_wait` with that timeout; the I/O driver pushes its events, then
//! the timer driver pushes the timers that came due. So I/O handles are queued before
//! due timers, and the poll timeout comes from the timer heap, as in `_run_once`.

use std::io;

use oneloop_core::EventLoop;
use oneloop_timers::TimerDriver;

use crate::IoDriver;

// ANCHOR: io_loop
/// A loop with the whole stack so far: timers (stage 5) over epoll (this stage).
pub type IoLoop = EventLoop<TimerDriver<IoDriver>>;

/// A new loop with timers on the real clock over a fresh [`IoDriver`] (asyncio's
/// `new_event_loop`). Fails only if the kernel refuses an epoll instance.
pub fn new_event_loop() -> io::Result<IoLoop> {
    Ok(EventLoop::with_driver(TimerDriver::new(IoDriver::new()?)))
}
// ANCHOR_END: io_loop
