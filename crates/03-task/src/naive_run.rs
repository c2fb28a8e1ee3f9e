//! The naive executor's run loop.

use crate::{Executor, RunReport, StepOutcome, step};

// ANCHOR: run_loop
impl Executor {
    /// Pops task ids in FIFO order and steps each, until the queue is empty or
    /// `budget` live tasks were polled. A stale id (its task already finished) is
    /// skipped without counting.
    ///
    /// The budget exists for one reason: a task that wakes itself on every poll keeps
    /// the queue non-empty for ever, and this loop would never return. A test's
    /// watchdog cannot stop a thread spinning here, but a budget can.
    pub fn run_with_budget(&self, budget: usize) -> RunReport {
        let mut polls = 0;
        while let Some(id) = self.queue.pop_front() {
            if step(&self.tasks, id) != StepOutcome::Stale {
                polls += 1;
            }
            if polls >= budget {
                return RunReport {
                    polls,
                    idle: self.queue.is_empty(),
                };
            }
        }
        RunReport { polls, idle: true }
    }
}
// ANCHOR_END: run_loop
