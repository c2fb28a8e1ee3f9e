//! The naive executor's run loop.
#![allow(unused_variables, unused_imports)]

use crate::{Executor, RunReport, StepOutcome, step};

impl Executor {
    /// Pops task ids in FIFO order and steps each, until the queue is empty or
    /// `budget` live tasks were polled. A stale id (its task already finished) is
    /// skipped without counting.
    ///
    /// The budget exists for one reason: a task that wakes itself on every poll keeps
    /// the queue non-empty for ever, and this loop would never return. A test's
    /// watchdog cannot stop a thread spinning here, but a budget can.
    pub fn run_with_budget(&self, budget: usize) -> RunReport {
        todo!(
            "stage 3, exercise 3: pop ids from the FIFO queue and step each, within the \
             budget — see chapter 3.4"
        )
    }
}
