//! Stage 3 of oneloop: tasks.
//!
//! Stage 2 ended with a future, a waker and `block_on`: one thread waiting for one
//! future. This stage runs *many* futures on one thread. Each becomes a **task**: the
//! future, owned by the executor, moved forward one **step** (one `poll`) at a time,
//! and scheduled for another step whenever its waker is called.
//!
//! In asyncio the same roles are `Task.__step` (send into the coroutine once),
//! `Task.__wakeup` (the done callback a task hangs on the future it waits for, which it
//! keeps in `_fut_waiter`) and `loop.call_soon` (the completed future queues `__wakeup`,
//! which calls `__step`). Where Rust differs:
//!
//! - A Python task is an object the loop and the future both point at. Here every task's
//!   future lives in a slab ([`Tasks`]), keyed by a [`TaskId`] that carries a generation,
//!   and a waker reads only that id and the scheduler to hand it to (see [`Schedule`]).
//!   So a spawned future need not be `Send`, while every waker is `Send + Sync`, as std
//!   requires.
//! - A step checks the task out of the slab while it polls it ([`step`]): user code
//!   never runs while the slab is borrowed, so it may spawn and wake freely.
//! - A spawned task is one allocation, its [`TaskCell`](hooks::TaskCell): the id and the
//!   scheduler its wakers read, its join cell and its future. Every waker is a raw
//!   waker over that cell, and the future is pinned inside it. Safe Rust can express
//!   neither, so `task_cell.rs` does both, in the crate's one `unsafe` module, and says
//!   at each block why it holds.
//! - The task's result goes to a [`JoinHandle`], itself a future. A panic inside the task
//!   is caught and returned as a [`JoinError`], as a Python task keeps its exception; a
//!   panic nobody retrieved goes to an exception handler ([`ExceptionSink`]).
//! - Scheduling is a trait, [`Schedule`]. This stage's [`Executor`] pushes ids on a
//!   FIFO queue and pops them in a loop. Stage 4 reuses the slab, the step, the wakers and
//!   the join handle unchanged, and brings its own [`Schedule`]: a loop that runs in
//!   turns, because this naive loop can be kept spinning for ever by one task.
//!
//! ```
//! use oneloop_task::Executor;
//!
//! let executor = Executor::new();
//! let child = executor.spawn(async { 6 * 7 });
//! let answer = executor
//!     .block_on(async move { child.await.expect("the child does not panic") })
//!     .expect("main does not panic");
//! assert_eq!(answer, 42);
//! ```
// Safe code everywhere but in `task_cell`, the one lesson: a task's one allocation, its
// wakers pointing at it and its future pinned in it (see that module).
#![deny(unsafe_code)]

mod done;
mod exception;
mod executor;
mod id;
mod join;
mod join_poll;
mod naive_run;
mod payload;
mod slab;
mod step;
mod step_outcome;
#[allow(unsafe_code)]
mod task_cell;
mod waker;

pub use done::DONE_CALLBACK;
pub use exception::{ExceptionReport, NEVER_RETRIEVED};
pub use executor::{BlockOnError, Executor, NaiveQueue, RunReport};
pub use id::{Label, TaskId};
pub use join::{JoinError, JoinHandle};
pub use slab::Tasks;
pub use step::step;
pub use step_outcome::StepOutcome;
pub use waker::Schedule;

pub(crate) use hooks::*;

/// What this stage lends to the next: the parts of the join protocol, the slab's
/// slots, the exception sink and the panic text, for a loop that brings its own
/// [`Schedule`]. A learner of stage 3 needs none of it.
pub mod hooks {
    pub use crate::exception::{
        ExceptionHandler, ExceptionSink, HANDLER_PANICKED, default_line, write_to_stderr,
    };
    pub use crate::join::{JoinCell, JoinState, spawn_into};
    pub use crate::payload::{PANIC_WITHOUT_MESSAGE, drop_payload, panic_message};
    pub use crate::slab::{LiveTask, TaskSlot, TaskSlotMut, TaskState};
    pub use crate::task_cell::{Body, HandleCell, JoinView, LoopOwned, RawTask, TaskCell, TaskRef};
}
