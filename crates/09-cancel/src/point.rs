//! Cancellation points: where a request is delivered.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::Error;
use crate::ctl::PointHome;
use crate::deliver::deliver;

/// A future made a cancellation point: its output, or `Err(Error::Cancelled(_))` if
/// the current task has an undelivered request when it is polled (the inner future is
/// then dropped).
///
/// The point keeps its loop's table of tasks from its first poll. While the running
/// task has no request waiting, a poll reads that and polls the inner future, with no
/// search of the loop's extensions; [`deliver`] decides every other case.
#[derive(Debug)]
pub struct Cancellable<F> {
    pub(crate) inner: Option<Pin<Box<F>>>,
    home: PointHome,
}

/// Turns `future` into a cancellation point of the task that awaits it.
pub fn cancellable<F: Future>(future: F) -> Cancellable<F> {
    Cancellable {
        inner: Some(Box::pin(future)),
        home: PointHome::default(),
    }
}

impl<F: Future> Future for Cancellable<F> {
    type Output = Result<F::Output, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(future) = this.inner.as_mut()
            && this.home.no_request_waiting()
        {
            // What `deliver` does when it has no request to deliver.
            return match future.as_mut().poll(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(value) => {
                    this.inner = None;
                    Poll::Ready(Ok(value))
                }
            };
        }
        deliver(&mut this.inner, cx)
    }
}

/// Stage 5's `sleep`, made a cancellation point (asyncio's `await asyncio.sleep(d)`).
/// A cancel drops the sleep, which cancels its timer.
pub fn sleep(delay: Duration) -> Cancellable<NotedSleep> {
    cancellable(NotedSleep(oneloop_timers::sleep(delay)))
}

/// Stage 5's [`Sleep`](oneloop_timers::Sleep) that, while it waits, says until when
/// (`oneloop_core::hooks::note_wait`): a leaf of the task tree. The note costs nothing while
/// no layer listens.
#[derive(Debug)]
pub struct NotedSleep(oneloop_timers::Sleep);

impl Future for NotedSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let poll = Pin::new(&mut self.0).poll(cx);
        if let (Poll::Pending, Some(timer)) = (&poll, self.0.timer()) {
            let when = timer.when();
            oneloop_core::hooks::note_wait(|| format!("sleep until {:.3}s", when.as_secs_f64()));
        }
        poll
    }
}

/// One bare yield, made a cancellation point (asyncio's `await asyncio.sleep(0)`).
pub fn yield_now() -> Cancellable<oneloop_core::YieldNow> {
    cancellable(oneloop_core::yield_now())
}
