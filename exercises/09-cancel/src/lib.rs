//! Stage 9 exercises: cancellation and structured concurrency.
//!
//! This crate is the reference crate `oneloop-cancel` with four mechanisms cut out. The
//! files you edit are:
//!
//! - `src/deliver.rs` — exercise 1: delivering a cancel at a cancellation point
//!   (chapter 9.2);
//! - `src/timeout_exit.rs` — exercise 2: the `uncancel` bookkeeping that lets a timeout
//!   tell its own cancel from an outer one (chapter 9.3);
//! - `src/group_done.rs` — exercise 3: a group's first failure cancels the rest
//!   (chapter 9.4);
//! - `src/select_poll.rs` — exercise 4: a select and its loser (chapter 9.5).
//!
//! Every other module comes from `crates/09-cancel/src`, unchanged. Do not edit this
//! file. Test your work with `cargo course test 9`, or `cargo test -p ex09-cancel`.
#![forbid(unsafe_code)]
// Under the challenge, what only the challenge file calls looks unused until it is written.
#![cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    allow(dead_code, unused_imports)
)]
// The helpers that only the holes call look unused until the holes are written.
#![cfg_attr(not(feature = "solution"), allow(dead_code))]

#[path = "../../../crates/09-cancel/src/combinators.rs"]
mod combinators;
#[path = "../../../crates/09-cancel/src/ctl.rs"]
mod ctl;
#[path = "../../../crates/09-cancel/src/eager.rs"]
mod eager;
#[path = "../../../crates/09-cancel/src/error.rs"]
mod error;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/09-cancel/src/group.rs"]
mod group;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/group.rs"
)]
mod group;
#[path = "../../../crates/09-cancel/src/point.rs"]
mod point;
#[path = "../../../crates/09-cancel/src/run.rs"]
mod run;
#[path = "../../../crates/09-cancel/src/select.rs"]
mod select;
#[path = "../../../crates/09-cancel/src/shutdown.rs"]
mod shutdown;
#[path = "../../../crates/09-cancel/src/step_scope.rs"]
mod step_scope;
#[path = "../../../crates/09-cancel/src/task.rs"]
mod task;
#[path = "../../../crates/09-cancel/src/timeout.rs"]
mod timeout;

#[cfg(not(feature = "solution"))]
mod deliver;
#[cfg(feature = "solution")]
#[path = "../../../crates/09-cancel/src/deliver.rs"]
mod deliver;

#[cfg(not(feature = "solution"))]
mod timeout_exit;
#[cfg(feature = "solution")]
#[path = "../../../crates/09-cancel/src/timeout_exit.rs"]
mod timeout_exit;

#[cfg(not(feature = "solution"))]
mod group_done;
#[cfg(feature = "solution")]
#[path = "../../../crates/09-cancel/src/group_done.rs"]
mod group_done;

#[cfg(not(feature = "solution"))]
mod select_poll;
#[cfg(feature = "solution")]
#[path = "../../../crates/09-cancel/src/select_poll.rs"]
mod select_poll;

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
