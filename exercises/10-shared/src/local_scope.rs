//! Copy-on-spawn: a task takes a copy of its spawner's context, and every step of it
//! runs with that copy current.
#![allow(unused_variables, unused_imports)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use oneloop_cancel::{Error, Task};

use crate::local::{Context, Scoped};

/// Spawns `future` as a stage 9 task that carries task-locals (asyncio's
/// `create_task`): it runs in a copy of the context current now, at the spawn.
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn<T, F>(future: F) -> Task<T>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    spawn_named("task", future)
}

/// Like [`spawn`], with a name.
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn_named<T, F>(name: &str, future: F) -> Task<T>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    todo!(
        "stage 10, exercise 3: spawn a stage 9 task of a Scoped future holding a copy of \
         the current context — see chapter 10.4"
    )
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    /// Polls the inner future with this task's context current, and puts the previous
    /// context back after (the task's own changes stay in its context).
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<F::Output> {
        todo!(
            "stage 10, exercise 3: poll the inner future with this task's context current \
             — see chapter 10.4"
        )
    }
}
