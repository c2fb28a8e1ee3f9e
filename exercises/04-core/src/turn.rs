//! One turn of the loop: asyncio's `_run_once`, the part that runs handles.
#![allow(unused_variables, unused_imports)]

use std::time::Duration;

use crate::{Driver, EventLoop, LoopError};

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
        todo!(
            "stage 4, exercise 2: begin the turn, choose the timeout, park, run the \
             ntodo snapshot, end the turn — see chapter 4.2"
        )
    }
}
