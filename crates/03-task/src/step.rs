//! One step of a task: poll its future once, with no borrow of the slab held.
//!
//! This is asyncio's `Task.__step`: resume the coroutine until it suspends or returns.
//! The difference is where the future is while it runs. A Python task holds its
//! coroutine; here the slab holds every future, and the slab sits in a `RefCell` that
//! the running future may need (to spawn a task, to wake one). So the step takes the
//! future *out* of its slot, releases the borrow, polls, and then borrows again to put
//! the future back (pending) or to free the slot (finished).

use std::cell::RefCell;
use std::mem;
use std::task::{Context, Poll};

use crate::{Schedule, StepOutcome, TaskId, TaskState, Tasks};

// ANCHOR: step
/// Runs one step of task `id`: poll its future once, with its own waker.
///
/// Order of events, each with no borrow held while user code runs:
/// 1. borrow the slab, find the live slot of `id` (a stale id or a task already being
///    polled gives [`StepOutcome::Stale`]), take its future out (state `Running`), clear
///    its `queued` flag (a wake during this poll must queue a new step), make its waker;
/// 2. release the borrow and poll the future;
/// 3. borrow again: `Pending` puts the future back (`Idle`); `Ready` frees the slot;
/// 4. drop what was removed only after that borrow is released.
pub fn step<S: Schedule>(tasks: &RefCell<Tasks<S>>, id: TaskId) -> StepOutcome {
    let (mut future, waker) = {
        let mut tasks = tasks.borrow_mut();
        let Some(slot) = tasks.slot_mut(id) else {
            return StepOutcome::Stale;
        };
        let TaskState::Idle(future) = mem::replace(&mut slot.state, TaskState::Running) else {
            // Already taken by a step further up the stack: re-entering would be a bug.
            return StepOutcome::Stale;
        };
        slot.queued = false;
        (future, slot.waker.waker())
    };

    let mut cx = Context::from_waker(&waker);
    let poll = future.as_mut().poll(&mut cx);

    match poll {
        Poll::Pending => {
            let mut tasks = tasks.borrow_mut();
            if let Some(slot) = tasks.slot_mut(id) {
                slot.state = TaskState::Idle(future);
                return StepOutcome::Pending;
            }
            // The slot vanished while we polled (the executor was drained from inside
            // the poll); fall through and drop the future once the borrow is gone.
            drop(tasks);
            drop(future);
            StepOutcome::Finished
        }
        Poll::Ready(()) => {
            let removed = tasks.borrow_mut().remove(id);
            drop(removed);
            drop(future);
            StepOutcome::Finished
        }
    }
}
// ANCHOR_END: step
