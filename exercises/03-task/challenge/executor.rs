//! A naive executor: one FIFO queue of task ids, and a loop that pops and steps.
//!
//! This is the smallest thing that runs tasks. Its queue is a `Mutex<VecDeque<TaskId>>`
//! so a waker may be called from any thread; each wake pushes the id and unparks the
//! executor's thread. It has no notion of a *turn*: its run loop pops until the queue is
//! empty, so a task that keeps waking itself keeps the loop from ever returning (see
//! [`Executor::run_with_budget`]). Stage 4 replaces it with a loop that works in turns.
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, Thread};

use crate::{
    ExceptionReport, ExceptionSink, JoinError, JoinHandle, Label, Schedule, TaskId, Tasks,
    spawn_into,
};

/// The executor's run queue, shared with every waker (hence the lock).
#[derive(Debug)]
pub struct NaiveQueue {
    ids: Mutex<VecDeque<TaskId>>,
    thread: Thread,
}

impl Schedule for NaiveQueue {
    fn schedule(&self, id: TaskId) {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(id);
        // The executor may be parked in `block_on`, waiting for exactly this.
        self.thread.unpark();
    }
}

impl NaiveQueue {
    /// Takes the oldest id. The lock is released before this returns, so the caller
    /// can poll a task that wakes itself without deadlocking on the queue.
    pub fn pop_front(&self) -> Option<TaskId> {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }
}

impl NaiveQueue {
    /// How many steps are queued.
    pub fn len(&self) -> usize {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no step is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one call of [`Executor::run_with_budget`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunReport {
    /// How many steps polled a live task.
    pub polls: usize,
    /// Whether the queue was empty when the run loop returned (false: the budget ran out).
    pub idle: bool,
}

/// Why [`Executor::block_on`] returned no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockOnError {
    /// The main future panicked (or was cancelled).
    Failed(JoinError),
    /// Nothing is queued and no task's waker is held anywhere: nothing can ever wake
    /// the main future, so waiting would be for ever.
    Stalled,
}

impl fmt::Display for BlockOnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockOnError::Failed(error) => write!(f, "the main future failed: {error}"),
            BlockOnError::Stalled => f.write_str(
                "the executor stalled: nothing is queued and no waker is held anywhere, \
                 so the main future can never be woken",
            ),
        }
    }
}

impl std::error::Error for BlockOnError {}

/// A naive single-threaded executor. Tasks need not be `Send`; wakers are.
pub struct Executor {
    pub(crate) tasks: RefCell<Tasks<NaiveQueue>>,
    pub(crate) queue: Arc<NaiveQueue>,
    sink: Rc<ExceptionSink>,
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executor")
            .field("tasks", &self.tasks)
            .field("queue", &self.queue)
            .finish()
    }
}

impl Default for Executor {
    fn default() -> Self {
        Self::new()
    }
}

impl Executor {
    /// An executor owned by the calling thread (the thread its wakers unpark).
    pub fn new() -> Self {
        let queue = Arc::new(NaiveQueue {
            ids: Mutex::new(VecDeque::new()),
            thread: thread::current(),
        });
        Self {
            tasks: RefCell::new(Tasks::new(Arc::clone(&queue))),
            queue,
            sink: ExceptionSink::new(),
        }
    }

    /// Spawns `future` as a task and queues its first step.
    pub fn spawn<F: Future + 'static>(&self, future: F) -> JoinHandle<F::Output> {
        self.spawn_inner(future, None)
    }

    /// Like [`spawn`](Self::spawn), with a name shown in reports.
    pub fn spawn_named<F: Future + 'static>(
        &self,
        label: impl Into<Label>,
        future: F,
    ) -> JoinHandle<F::Output> {
        self.spawn_inner(future, Some(label.into()))
    }

    fn spawn_inner<F: Future + 'static>(
        &self,
        future: F,
        label: Option<Label>,
    ) -> JoinHandle<F::Output> {
        todo!("stage 3, challenge: the naive executor; see chapter 3.4")
    }

    /// Replaces the exception handler (the default writes to stderr).
    pub fn set_exception_handler(&self, handler: impl Fn(&ExceptionReport) + 'static) {
        self.sink.set_handler(handler);
    }

    /// How many tasks are live (spawned and not finished).
    pub fn live_tasks(&self) -> usize {
        self.tasks.borrow().len()
    }

    /// How many steps are queued.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Runs steps until the queue is empty; returns how many live tasks were polled.
    pub fn run_until_idle(&self) -> usize {
        todo!("stage 3, challenge: the naive executor; see chapter 3.4")
    }

    /// Runs `future` as the main task, and every task it spawns, until it finishes.
    /// Between runs the thread parks; any waker (from any thread) unparks it.
    pub fn block_on<F: Future + 'static>(&self, future: F) -> Result<F::Output, BlockOnError> {
        todo!("stage 3, challenge: the naive executor; see chapter 3.4")
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        // Drop unfinished tasks with no borrow held: their guards wake their joiners.
        let leftovers = self.tasks.borrow_mut().drain();
        drop(leftovers);
    }
}
