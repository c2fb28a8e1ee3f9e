//! One step of a task: poll its future once, with no borrow of the slab held.
//!
//! This is asyncio's `Task.__step`: resume the coroutine until it suspends or returns.
//! The difference is where the future is while it runs. A Python task holds its
//! coroutine; here the slab holds every future, and the slab sits in a `RefCell` that
//! the running future may need (to spawn a task, to wake one). So the step checks the
//! task *out*: it marks the slot `Running` and takes its own pointer to the task (a
//! clone of the slot's [`TaskRef`]). Then it releases the borrow, polls, and borrows
//! again to check the task back in (`Idle`, pending) or to free the slot (finished).
#![allow(unused_variables, unused_imports)]

use std::cell::RefCell;
use std::task::Poll;

use crate::{Schedule, StepOutcome, TaskId, TaskRef, TaskState, Tasks};

/// Runs one step of task `id`: poll its future once, with its own waker.
///
/// Order of events, each with no borrow held while user code runs:
/// 1. borrow the slab, find the live slot of `id` (a stale id or a task already being
///    polled gives [`StepOutcome::Stale`]), mark it `Running`, take a pointer to the
///    task (a clone of its `TaskRef`), clear its `queued` flag (a wake during this poll must
///    queue a new step);
/// 2. release the borrow and poll the task (it lends its own waker: none is made);
/// 3. borrow again: `Pending` checks the task back in (`Idle`); `Ready` frees the slot;
/// 4. drop what was removed (that drops the future) only after that borrow is
///    released. If the slot was emptied while the task ran (a drain from inside its
///    poll), drop the future through the step's own `TaskRef`.
pub fn step<S: Schedule>(tasks: &RefCell<Tasks<S>>, id: TaskId) -> StepOutcome {
    todo!(
        "stage 3, exercise 1: take the task out of its slot, poll it with no borrow \
         held, then put it back or free the slot — see chapter 3.1"
    )
}
