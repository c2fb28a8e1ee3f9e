//! `run_until_complete`: run turns until the loop stops, then hand back main's result.
#![allow(unused_variables, unused_imports)]

use std::future::Future;

use crate::main_task::spawn_main;
use crate::{Driver, EventLoop, LoopError};

impl<D: Driver> EventLoop<D> {
    /// Spawns `future` as the main task, runs the loop until it stops, and returns
    /// main's result (asyncio's `run_until_complete`).
    ///
    /// - A loop that may not run refuses at once, before main is spawned:
    ///   [`check_runnable`](Self::check_runnable) gives [`LoopError::Closed`] for a
    ///   closed loop and [`LoopError::AnotherLoopRunning`] inside a turn of another
    ///   loop on this thread.
    /// - Main is spawned with `spawn_main`, whose guard queues the callback that stops
    ///   the loop when main finishes: main done in turn *T* stops the loop after turn
    ///   *T + 1*, as in CPython.
    /// - The loop runs as [`run_forever`](Self::run_forever) runs it; its errors are
    ///   returned as they are.
    /// - Once it stops: main's output, or [`LoopError::MainFailed`] with its
    ///   [`JoinError`](oneloop_task::JoinError); if main has not finished (something
    ///   else called `stop()`), [`LoopError::StoppedBeforeComplete`], asyncio's
    ///   "Event loop stopped before Future completed." Main then stays alive, and its
    ///   guard is disarmed.
    pub fn run_until_complete<F: Future + 'static>(
        &mut self,
        future: F,
    ) -> Result<F::Output, LoopError> {
        todo!(
            "stage 4, exercise 4: spawn main with its stop guard, run the loop until it \
             stops, then return main's result or say it stopped first — see chapter 4.5"
        )
    }
}
