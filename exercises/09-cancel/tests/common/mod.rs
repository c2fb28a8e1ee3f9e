//! Helpers shared by the stage 9 exercise tests.
#![allow(dead_code)]

use std::future::Future;
use std::time::Duration;

use ex09_cancel::{Error, spawn_named};

/// `n` seconds.
pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// Runs `main` as a task of this layer on a virtual-time loop, to its end.
pub fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { spawn_named("main", main).join().await })
        .expect("the loop runs")
}

/// The loop's turn now.
pub fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}
