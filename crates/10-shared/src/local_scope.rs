//! Copy-on-spawn: a task takes a copy of its spawner's context, and every step of it
//! runs with that copy current.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use oneloop_cancel::{Error, Task};

use crate::local::{Context, Scoped};

// ANCHOR: spawn
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
    oneloop_cancel::spawn_named(name, Scoped::new(Context::copy_current(), future))
}
// ANCHOR_END: spawn

// ANCHOR: scoped_poll
impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    /// Polls the inner future with this task's context current, and puts the previous
    /// context back after (the task's own changes stay in its context).
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let context = this.context.clone();
        context.run(|| this.future.as_mut().poll(cx))
    }
}
// ANCHOR_END: scoped_poll
