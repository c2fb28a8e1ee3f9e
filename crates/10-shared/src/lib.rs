//! Stage 10 of oneloop: shared state across awaits, task-locals, and the live task tree.
//!
//! One thread does not make shared state safe. Between an `await` and the next,
//! every other task may run; an invariant that spans an `await` is broken by whichever
//! of them touches the same state. [`lost_update`] shows it: two workers read a
//! counter, await, and write back, and half of their increments vanish. A [`Lock`]
//! around the three steps fixes it.
//!
//! Every primitive here is a **queue of wakers** on top of stage 9's tasks:
//!
//! - a task that cannot go on puts a waiter at the back of the primitive's queue;
//! - whoever makes progress possible wakes the oldest waiter (an event's `set`, a
//!   barrier's last party and `notify(n)` wake every waiter, or `n` of them); the
//!   wake queues the task's step on the ready queue, so it runs in the next turn;
//! - every wait is a cancellation point; a waiter cancelled while queued leaves the
//!   queue and passes on a wake it was handed, so the next waiter is not stranded
//!   (except a condition's notify, which 3.11 loses too);
//! - a waiter skipped because it looked cancelled, whose task then took the cancel at
//!   another await, asks again when it is polled, so it is not stranded either.
//!
//! [`Lock`], [`Event`], [`Condition`], [`Semaphore`], [`BoundedSemaphore`], [`Barrier`]
//! and [`Queue`] follow asyncio 3.11 (wake order, no barging past a lock's waiters,
//! turn counts). Misuse is an error value, and the loop goes on: releasing a free lock,
//! `task_done` too often, a bounded semaphore released too often, a primitive waited
//! on from a second loop. The primitives are `!Send`: using one from another thread
//! does not compile.
//!
//! [`TaskLocal`] is asyncio's `ContextVar`: a task spawned with [`spawn`] runs in a
//! copy of its spawner's [`Context`], taken at the spawn; [`call_soon`] and
//! [`to_thread`] carry a copy too.
//!
//! The **live task tree** shows who waits on whom: [`all_tasks`], [`current_task`] and
//! [`snapshot`] list each task with its state and what it awaits (a sleep, a socket,
//! another task, a gather or a group); [`tree_text`] and [`table_text`] print it as
//! `python -m asyncio pstree` and `ps` do. [`enable_introspection`] serves the same
//! text on a private Unix socket, so `cargo run -p oneloop-shared --example ps -- PID`
//! prints another running program's tree. While off it costs nothing per turn.
//!
//! ```
//! use std::rc::Rc;
//! use oneloop_shared::{Lock, lost_update};
//!
//! // Without a lock, two workers of 100 rounds each lose half their updates.
//! let unlocked = lost_update(2, 100, false);
//! assert_eq!((unlocked.expected, unlocked.counted), (200, 100));
//! // With one, none is lost.
//! let locked = lost_update(2, 100, true);
//! assert_eq!(locked.counted, 200);
//!
//! // A lock used directly: held by one task at a time.
//! let mut event_loop = oneloop_timers::virtual_time_loop();
//! let lock = Rc::new(Lock::new());
//! event_loop
//!     .run_until_complete(async move {
//!         lock.acquire().await.expect("a free lock is taken at once");
//!         assert!(lock.locked());
//!         lock.release().expect("held");
//!         assert!(lock.release().is_err(), "a free lock cannot be released");
//!     })
//!     .expect("the loop runs");
//! ```
#![forbid(unsafe_code)]

mod barrier;
mod bind;
mod condition;
mod error;
mod event;
mod local;
mod local_scope;
mod lock;
mod lock_wait;
mod lost_update;
mod queue;
mod queue_wait;
mod semaphore;
mod wait;
mod waiters;

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

// The live task tree: in-process views, and the socket that shows them outside.
mod introspect;
mod introspect_serve;
mod tree;
mod tree_walk;

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
