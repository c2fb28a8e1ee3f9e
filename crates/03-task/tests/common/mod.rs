//! The scheduler, slab and exception sink the stage 3 tests share.
#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use oneloop_task::hooks::ExceptionSink;
use oneloop_task::{ExceptionReport, Schedule, TaskId, Tasks};

/// Records the ids it is asked to schedule.
#[derive(Debug, Default)]
pub struct Recorder {
    pub ids: Mutex<Vec<TaskId>>,
}

impl Schedule for Recorder {
    fn schedule(&self, id: TaskId) {
        self.ids.lock().expect("not poisoned").push(id);
    }
}

impl Recorder {
    /// The ids scheduled so far, in order; the record starts again empty.
    pub fn taken(&self) -> Vec<TaskId> {
        std::mem::take(&mut *self.ids.lock().expect("not poisoned"))
    }
}

/// A slab whose wakers record ids.
pub type Slab = Rc<RefCell<Tasks<Recorder>>>;

pub fn slab() -> Slab {
    Rc::new(RefCell::new(Tasks::new(Arc::new(Recorder::default()))))
}

/// A sink that keeps every report.
pub fn sink() -> (Rc<ExceptionSink>, Rc<RefCell<Vec<ExceptionReport>>>) {
    let sink = ExceptionSink::new();
    let reports = Rc::new(RefCell::new(Vec::new()));
    let kept = Rc::clone(&reports);
    sink.set_handler(move |report| kept.borrow_mut().push(report.clone()));
    (sink, reports)
}
