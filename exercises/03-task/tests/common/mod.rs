//! Small futures and schedulers the stage 3 tests share.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use ex03_task::{Schedule, TaskId};

/// Returns `Pending` once (waking itself first), then `Ready`: a bare yield, like
/// asyncio's `sleep(0)`.
#[derive(Debug, Default)]
pub struct YieldOnce {
    yielded: bool,
}

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

pub fn yield_once() -> YieldOnce {
    YieldOnce::default()
}

/// A scheduler that only records which ids were scheduled.
#[derive(Debug, Default)]
pub struct Recorder {
    pub ids: Mutex<Vec<TaskId>>,
}

impl Schedule for Recorder {
    fn schedule(&self, id: TaskId) {
        self.ids.lock().unwrap().push(id);
    }
}

impl Recorder {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    pub fn taken(&self) -> Vec<TaskId> {
        std::mem::take(&mut *self.ids.lock().unwrap())
    }
}
