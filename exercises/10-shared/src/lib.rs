//! Stage 10 exercises: shared state across awaits, task-locals, and the live task tree.
//!
//! This crate is the reference crate `oneloop-shared` with four mechanisms cut out.
//! The files you edit are:
//!
//! - `src/lock_wait.rs` — exercise 1: the lock's first-in first-out hand-off, with no
//!   barging (chapter 10.1);
//! - `src/queue_wait.rs` — exercise 2: the queue's bounded `put`/`get` pair
//!   (chapter 10.3);
//! - `src/local_scope.rs` — exercise 3: task-locals copied at the spawn (chapter 10.4);
//! - `src/tree_walk.rs` — exercise 4: the tree walk from join relations (chapter 10.5).
//!
//! Every other module comes from `crates/10-shared/src`, unchanged. Do not edit this
//! file. Test your work with `cargo course test 10`, or `cargo test -p ex10-shared`.
#![forbid(unsafe_code)]
// Under the challenge, what only the challenge file calls looks unused until it is written.
#![cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    allow(dead_code, unused_imports)
)]
// The helpers that only the holes call look unused until the holes are written.
#![cfg_attr(not(feature = "solution"), allow(dead_code))]

#[path = "../../../crates/10-shared/src/barrier.rs"]
mod barrier;
#[path = "../../../crates/10-shared/src/bind.rs"]
mod bind;
#[path = "../../../crates/10-shared/src/condition.rs"]
mod condition;
#[path = "../../../crates/10-shared/src/error.rs"]
mod error;
#[path = "../../../crates/10-shared/src/event.rs"]
mod event;
#[path = "../../../crates/10-shared/src/local.rs"]
mod local;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/10-shared/src/lock.rs"]
mod lock;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/lock.rs"
)]
mod lock;
#[path = "../../../crates/10-shared/src/lost_update.rs"]
mod lost_update;
#[path = "../../../crates/10-shared/src/queue.rs"]
mod queue;
#[path = "../../../crates/10-shared/src/semaphore.rs"]
mod semaphore;
#[path = "../../../crates/10-shared/src/wait.rs"]
mod wait;
#[path = "../../../crates/10-shared/src/waiters.rs"]
mod waiters;

#[cfg(not(feature = "solution"))]
mod lock_wait;
#[cfg(feature = "solution")]
#[path = "../../../crates/10-shared/src/lock_wait.rs"]
mod lock_wait;

#[cfg(not(feature = "solution"))]
mod queue_wait;
#[cfg(feature = "solution")]
#[path = "../../../crates/10-shared/src/queue_wait.rs"]
mod queue_wait;

#[cfg(not(feature = "solution"))]
mod local_scope;
#[cfg(feature = "solution")]
#[path = "../../../crates/10-shared/src/local_scope.rs"]
mod local_scope;

// The live task tree, and the socket that shows it outside the process.
#[path = "../../../crates/10-shared/src/introspect.rs"]
mod introspect;
#[path = "../../../crates/10-shared/src/introspect_serve.rs"]
mod introspect_serve;
#[path = "../../../crates/10-shared/src/tree.rs"]
mod tree;

#[cfg(not(feature = "solution"))]
mod tree_walk;
#[cfg(feature = "solution")]
#[path = "../../../crates/10-shared/src/tree_walk.rs"]
mod tree_walk;

pub use barrier::Barrier;
pub use condition::Condition;
pub use error::{
    BARRIER_BROKEN, BOUND_TO_ANOTHER_LOOP, BOUNDED_OVER_RELEASE, CONDITION_NOT_LOCKED,
    LOCK_NOT_ACQUIRED, QueueError, TASK_DONE_TOO_OFTEN,
};
pub use event::Event;
pub use local::{
    Context, Scoped, TaskLocal, Token, call_soon, call_soon_in, carry_context_into_every_task,
    to_thread,
};
pub use local_scope::{spawn, spawn_named};
pub use lock::{Acquire, Lock};
pub use lost_update::{LostUpdate, lost_update};
pub use queue::{Get, Put, Queue};
pub use semaphore::{BoundedSemaphore, Semaphore};

pub use introspect::{
    CLIENT_TIMEOUT, IntrospectStats, Introspection, MAX_CLIENTS, MAX_REQUEST, MAX_SOCKET_PATH,
    NEEDS_TIMERS, enable_introspection, enable_introspection_in, query, query_path, socket_dir,
    socket_path,
};
pub use tree::{
    Awaited, DRAWN_DEPTH, LISTED_IN_A_CELL, STALLED_TREE, TaskInfo, TaskState, TreeItem, TreeLine,
    all_tasks, current_task, render_table, render_tree, snapshot, table_text, track, tree_text,
    walk,
};
