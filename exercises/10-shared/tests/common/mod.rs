//! Helpers shared by the stage 10 exercise tests.
#![allow(dead_code)]

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, spawn_named};

/// Runs `main` as a stage 9 task on a virtual-time loop, to its end. A loop that would
/// wait for ever (a waiter nobody wakes) fails with `Stalled`, which panics here.
pub fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { spawn_named("main", main).join().await })
        .expect("the loop runs to the end (a stall means a waiter was never woken)")
}

/// Runs `main` as a task of this stage (in a context of its own), on a virtual-time
/// loop, to its end.
pub fn run_scoped<T: 'static>(
    main: impl Future<Output = Result<T, Error>> + 'static,
) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { ex10_shared::spawn_named("main", main).join().await })
        .expect("the loop runs to the end")
}

/// The loop's turn now.
pub fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}

/// `await asyncio.sleep(0)`: one bare yield, a cancellation point.
pub async fn bare_yield() -> Result<(), Error> {
    oneloop_cancel::sleep(Duration::ZERO).await
}

/// A log of `(turn, what)` lines, shared by the tasks of a test.
#[derive(Clone, Default)]
pub struct Log(Rc<RefCell<Vec<(u64, String)>>>);

impl Log {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `what` in the current turn.
    pub fn say(&self, what: impl Into<String>) {
        self.0.borrow_mut().push((turn(), what.into()));
    }

    /// Everything recorded, in order.
    pub fn lines(&self) -> Vec<(u64, String)> {
        self.0.borrow().clone()
    }

    /// Only the texts, in order.
    pub fn texts(&self) -> Vec<String> {
        self.0
            .borrow()
            .iter()
            .map(|(_, what)| what.clone())
            .collect()
    }

    /// The turn `what` was recorded in.
    pub fn turn_of(&self, what: &str) -> u64 {
        self.0
            .borrow()
            .iter()
            .find(|(_, w)| w == what)
            .unwrap_or_else(|| panic!("`{what}` was recorded: {:?}", self.lines()))
            .0
    }
}

/// Polls `future` first with a waker that does nothing (as a combinator with wakers of
/// its own may), waking its own task so that it is polled again at once, then always
/// with the task's waker.
pub async fn first_poll_elsewhere<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut first = true;
    std::future::poll_fn(move |cx| {
        if std::mem::take(&mut first) {
            let mut elsewhere = std::task::Context::from_waker(std::task::Waker::noop());
            let poll = future.as_mut().poll(&mut elsewhere);
            if poll.is_pending() {
                cx.waker().wake_by_ref();
            }
            return poll;
        }
        future.as_mut().poll(cx)
    })
    .await
}

/// Polls `future` once with the task's waker, and says whether it is pending: a wait
/// that queued, and that the task may leave parked while it awaits something else.
pub async fn pending_after_one_poll<F: std::future::Future + Unpin>(future: &mut F) -> bool {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx).is_pending())
    })
    .await
}

/// One yield that is not a cancellation point (stage 1's `yield_now`, which knows
/// nothing of cancels): a cancel request made meanwhile stays undelivered, for the
/// next cancellation point to deliver.
pub async fn plain_yield() {
    oneloop_core::yield_now().await;
}
