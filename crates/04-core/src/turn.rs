//! One turn of the loop: asyncio's `_run_once`, the part that runs handles.

use std::time::Duration;

use crate::{Driver, EventLoop, LoopError};

// ANCHOR: one_turn
impl<D: Driver> EventLoop<D> {
    /// One turn: begin it, park, run exactly the handles queued when the run phase
    /// began, end it.
    ///
    /// - The timeout is zero if a handle is ready or the loop is stopping (a stop must
    ///   not wait), and `None` (wait until something happens) otherwise.
    /// - Park with [`park`](Self::park), which also catches stalls and foreign wakes.
    /// - `ntodo` is the queue's length *after* parking (the driver may have pushed) and
    ///   *before* running anything: a handle queued by a running handle waits for the
    ///   next turn.
    /// - Each handle runs through `Core::run_handle`.
    pub(crate) fn one_turn(&mut self) -> Result<(), LoopError> {
        let turn = self.core.begin_turn();
        let timeout = if self.core.ready.is_empty() && !self.core.is_stopping() {
            None
        } else {
            Some(Duration::ZERO)
        };
        let report = self.park(timeout)?;
        let ntodo = self.core.ready.len();
        for _ in 0..ntodo {
            let Some(handle) = self.core.ready.pop() else {
                break;
            };
            self.core.run_handle(turn, handle);
        }
        self.core.end_turn(turn, &report, ntodo);
        Ok(())
    }
}
// ANCHOR_END: one_turn
