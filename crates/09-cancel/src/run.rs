//! `run` for this layer: main as a task of its own, on the whole stack of stage 7.

use std::future::Future;

use oneloop_core::LoopError;
use oneloop_offload::OffloadLoop;
use oneloop_timers::prelude::TimerMethods;

use crate::{Error, task_future};

// ANCHOR: run
/// Runs `main` as a task of this layer named `"main"` on a fresh loop, then closes the
/// loop (asyncio's `asyncio.run`): main can be cancelled, and [`current`](crate::current)
/// inside it is main's own task. Returns main's result, or the loop's error. A main
/// that panics ends as any task does: its result is `Err(Error::Panicked(msg))`, so
/// `run` returns `Ok(Err(Error::Panicked(msg)))`.
///
/// # Panics
///
/// If the kernel refuses an epoll instance or an eventfd.
pub fn run<T, F>(main: F) -> Result<Result<T, Error>, LoopError>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    run_with(|_| {}, main)
}

/// Like [`run`], but lets `setup` prepare the fresh loop before its first turn (an
/// observer added there sees turn 1).
///
/// # Panics
///
/// If the kernel refuses an epoll instance or an eventfd.
pub fn run_with<T, F>(
    setup: impl FnOnce(&mut OffloadLoop),
    main: F,
) -> Result<Result<T, Error>, LoopError>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    let (future, task) = task_future("main", main);
    oneloop_offload::run_with(setup, future)?;
    Ok(task
        .try_result()
        .expect("run_until_complete returns once main's task is done"))
}

/// [`run`] with debug mode on from the first turn (`asyncio.run(main, debug=True)`).
///
/// # Panics
///
/// If the kernel refuses an epoll instance or an eventfd.
pub fn run_debug<T, F>(main: F) -> Result<Result<T, Error>, LoopError>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    run_with(|event_loop| event_loop.set_debug(true), main)
}
// ANCHOR_END: run
