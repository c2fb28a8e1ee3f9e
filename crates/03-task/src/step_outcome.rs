//! What one step of a task did: the answer of [`step`](crate::step).

// ANCHOR: step_outcome
/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// The future returned `Pending` and is back in its slot, waiting for a wake.
    Pending,
    /// The future returned `Ready`: its slot is free and its generation bumped.
    Finished,
    /// Nothing ran: the id is stale (the task finished) or a step is already running it.
    Stale,
}
// ANCHOR_END: step_outcome
