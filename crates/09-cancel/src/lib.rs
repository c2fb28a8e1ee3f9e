//! Stage 9 of oneloop: cancellation and structured concurrency.
//!
//! Work must stop: a request whose client left, a service that shuts down, an answer
//! that came too late. asyncio and Rust stop work in opposite ways, and this stage
//! builds both on the stage 4–7 loop.
//!
//! - **Abort**, Rust's way ([`Task::abort`]): the task's next step drops its future
//!   instead of polling it. Every destructor inside runs then, synchronously; timers
//!   (a timeout scope's deadline among them) and I/O registrations are released by
//!   those destructors. No code of the task runs
//!   again, so cleanup that needs the loop cannot happen.
//! - **Cancel**, asyncio's way ([`Task::cancel`]): a request, counted
//!   ([`Task::cancelling`], [`Task::uncancel`]), passed on to the tasks the task awaits,
//!   and otherwise delivered at the task's next **cancellation point** as
//!   `Err(Error::Cancelled(msg))`. Cancellation points are explicit: [`cancellable`]
//!   makes any future one, and [`sleep`], [`Task::join`], [`wait`], [`gather`], the
//!   wait of a [`task_group`] are ones. Code after it may await (a cleanup that talks
//!   to a peer), may carry on, or may return the error, which ends the task cancelled.
//!   While no cancellation point is reached, a request waits; a task that returns
//!   `Ok` with a request still undelivered ends cancelled, as in asyncio.
//! - On top of cancel: [`timeout_scope`] / [`timeout`] / [`timeout_at`] /
//!   [`wait_for`], which tell their own cancel from an outer one by counting requests,
//!   and [`task_group`], asyncio 3.11's `TaskGroup`.
//! - Combinators: [`shield`], [`gather`], [`wait`], [`AsCompleted`], [`select`] (the
//!   loser is dropped) and [`race`] (the loser is cancelled and awaited).
//! - Eager start ([`spawn_eager`], [`set_eager_start`], Python 3.12's eager tasks): the
//!   first step runs inside `spawn`; the task is queued only when something wakes it.
//! - Shutdown, asyncio's way ([`cancel_leftovers`], [`run_cancelling`]): leftover
//!   tasks are cancelled and awaited within a bound, and failures are reported.
//!
//! A task of this layer is spawned with [`spawn`]; its future returns
//! `Result<T, Error>`, where [`Error`] plays the part of Python's exceptions.
//!
//! ```
//! use std::time::Duration;
//! use oneloop_cancel::{Error, sleep, spawn};
//!
//! let mut event_loop = oneloop_timers::virtual_time_loop();
//! let outcome = event_loop
//!     .run_until_complete(async {
//!         let child = spawn(async {
//!             sleep(Duration::from_secs(10)).await?;
//!             Ok("slept")
//!         });
//!         sleep(Duration::from_secs(1)).await.ok();
//!         child.cancel(Some("enough"));
//!         child.join().await
//!     })
//!     .expect("the loop runs");
//! assert_eq!(outcome, Err(Error::Cancelled(Some("enough".to_owned()))));
//! ```
#![forbid(unsafe_code)]

mod combinators;
mod ctl;
mod deliver;
mod eager;
mod error;
mod group;
mod group_done;
mod point;
mod run;
mod select;
mod select_poll;
mod shutdown;
mod step_scope;
mod task;
mod timeout;
mod timeout_exit;

pub use combinators::{AsCompleted, ReturnWhen, Shield, gather, race, shield, wait};
pub use ctl::{TaskRef, all_tasks, current, task_searches};
pub use deliver::deliver;
pub use eager::{set_eager_start, spawn_eager, spawn_eager_named};
pub use error::{
    Error, GROUP_FINISHED, GROUP_SHUTTING_DOWN, LOOP_CLOSED, NO_CURRENT_TASK, RESULT_TAKEN,
    TIMEOUT_OVER, WAIT_NOTHING,
};
pub use group::{TaskGroup, task_group};
pub use point::{Cancellable, NotedSleep, cancellable, sleep, yield_now};
pub use run::{run, run_debug, run_with};
pub use select::{LoserFate, Select, Selected, select};
pub use select_poll::poll_select;
pub use shutdown::{
    SHUTDOWN_FAILED, SHUTDOWN_UNFINISHED, Shutdown, cancel_leftovers, run_cancelling,
};
pub use step_scope::{MakeStepScope, StepScope, scope_every_task};
pub use task::{AbortHandle, Join, Task, TaskFuture, spawn, spawn_named, task_future};
pub use timeout::{TimeoutScope, timeout, timeout_at, timeout_scope, wait_for};
pub use timeout_exit::timeout_exit;
