//! Small futures and schedulers the stage 3 tests share.
#![allow(dead_code, unused_imports)]

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use ex03_task::hooks::{ExceptionSink, spawn_into};
use ex03_task::{ExceptionReport, JoinHandle, Schedule, TaskId, Tasks, step};

/// Returns `Pending` once (waking itself first), then `Ready`: a bare yield, like
/// asyncio's `sleep(0)`. It is stage 1's `yield_now`, a plain std future.
pub use oneloop_coroutine::yield_now as yield_once;

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

/// Just enough executor for the join tests, so that they need exercises 1 and 2 only:
/// a slab whose wakers record ids, a loop that steps the recorded ids, and a sink that
/// keeps every report. (Exercise 3 writes the real run loop.)
pub struct Bench {
    pub tasks: RefCell<Tasks<Recorder>>,
    recorder: Arc<Recorder>,
    sink: Rc<ExceptionSink>,
    pub reports: Rc<RefCell<Vec<ExceptionReport>>>,
}

impl Bench {
    pub fn new() -> Self {
        let recorder = Recorder::new();
        let sink = ExceptionSink::new();
        let reports = Rc::new(RefCell::new(Vec::new()));
        let kept = Rc::clone(&reports);
        sink.set_handler(move |report| kept.borrow_mut().push(report.clone()));
        Self {
            tasks: RefCell::new(Tasks::new(Arc::clone(&recorder))),
            recorder,
            sink,
            reports,
        }
    }

    /// Spawns `future` under `label` and schedules its first step.
    pub fn spawn_named<F: Future + 'static>(
        &self,
        label: &'static str,
        future: F,
    ) -> JoinHandle<F::Output> {
        let (id, handle) = spawn_into(&self.tasks, &self.sink, future, Some(label.into()));
        self.recorder.schedule(id);
        handle
    }

    /// Steps the scheduled ids, oldest first, until none is left.
    pub fn run(&self) {
        loop {
            let ids = self.recorder.taken();
            if ids.is_empty() {
                return;
            }
            for id in ids {
                step(&self.tasks, id);
            }
        }
    }
}
