//! Stage 4 of oneloop: the loop core.
//!
//! Stage 3 ran tasks with a naive executor: pop a task, step it, repeat until the queue
//! is empty. One task that kept waking itself kept that loop from ever returning. This
//! stage replaces it with asyncio's shape: a **ready queue** of **handles** and a loop
//! that runs in **turns**. Each turn parks the driver (not at all if something is ready),
//! then runs exactly the handles that were queued when its run phase began — the `ntodo`
//! snapshot of `BaseEventLoop._run_once` — so whatever those handles queue waits for the
//! next turn, and the loop looks at the outside world between every two batches.
//!
//! What stays from stage 3: the slab, the step, the wakers and the join handle, unchanged.
//! This crate brings a new [`Schedule`](oneloop_task::Schedule), the [`LoopScheduler`]:
//! a wake on the loop's own thread pushes the task's step at the back of the ready
//! queue (asyncio's `call_soon`), at most once per turn. A wake from another thread
//! cannot touch the loop: it goes to the layer that took such wakes over, if one did
//! ([`RemoteWake`]; stage 7's injection queue is one), and otherwise makes the loop
//! stop with an error that names stage 7, where such wakes become possible.
//!
//! Where Rust differs from asyncio:
//!
//! - Handles come in four kinds ([`Callback`]) so that a task step, a persistent
//!   callback and a due timer allocate nothing per run.
//! - A finished task's join handle wakes the task awaiting it, whose step runs next turn:
//!   the same single hop as asyncio, where the finished task queues the awaiter's
//!   `__wakeup`. [`gather`] saves a hop: asyncio's children first run gather's own done
//!   callbacks, the last of which wakes the awaiting task; here every child wakes it
//!   directly. Each test of turn counts says where oneloop and CPython agree, and where
//!   they do not.
//! - `run_until_complete` stops the loop the way asyncio does, one turn after main
//!   finishes, with a callback labelled [`RUN_UNTIL_COMPLETE_CB`]; a guard inside
//!   main's future queues that callback when it is dropped (main returned or
//!   panicked), where asyncio hangs it on main's task as a done callback.
//! - A join handle's done callbacks (stage 3's `add_done_callback`) are queued as
//!   handles labelled `done_callback`, one turn after the task ends, as asyncio's are.
//! - [`yield_now`] is stage 1's, unchanged: asyncio's `await sleep(0)` is the same bare
//!   yield, which the task answers by queuing its own next step.
//! - The loop is generic over a [`Driver`]: the one place it sleeps. Stage 5 wraps the
//!   driver with timers, stage 6 puts epoll at the bottom; this crate does not change.
//!
//! The items at this crate's root are the stage's lesson. What it lends to the later
//! layers (handles, the ready queue, extensions, the hooks for wakes from other
//! threads) sits in [`hooks`].
//!
//! ```
//! use std::cell::RefCell;
//! use std::rc::Rc;
//! use oneloop_core::{EventLoop, gather, yield_now};
//!
//! let mut event_loop = EventLoop::new();
//! let log = Rc::new(RefCell::new(Vec::new()));
//! let seen = Rc::clone(&log);
//! event_loop.call_soon(move || seen.borrow_mut().push("callback"));
//! let sum = event_loop
//!     .run_until_complete(async {
//!         let parts = gather((1..=3).map(|n| async move {
//!             yield_now().await;
//!             n * 10
//!         }));
//!         parts.await.expect("no child panics").iter().sum::<i32>()
//!     })
//!     .expect("main finishes");
//! assert_eq!(sum, 60);
//! assert_eq!(*log.borrow(), ["callback"]);
//! ```
#![forbid(unsafe_code)]

mod core;
mod driver;
mod error;
mod event_loop;
mod extensions;
mod gather;
mod gather_poll;
mod handle;
mod main_task;
mod observer;
mod off_thread;
mod ready;
mod registry;
mod runner;
mod turn;
mod until_complete;
mod wake;

pub use crate::core::Core;
pub use driver::{Driver, ParkReport, ThreadParker};
pub use error::{ANOTHER_LOOP_RUNNING, FOREIGN_WAKE, LoopError};
pub use event_loop::EventLoop;
pub use gather::Gather;
pub use gather_poll::gather;
pub use handle::CallbackHandle;
pub use main_task::RUN_UNTIL_COMPLETE_CB;
pub use observer::Observer;
pub(crate) use observer::Observers;
pub use oneloop_coroutine::{YieldNow, yield_now};
pub use oneloop_task::{ExceptionReport, JoinError, JoinHandle, Label, NEVER_RETRIEVED, TaskId};
pub use registry::{LoopScheduler, spawn};
pub use runner::{Runner, run, run_with};

pub(crate) use hooks::*;

/// What this stage lends to the layers above it: the handles and the ready queue a
/// driver pushes to, the extensions where a layer puts its shared half, the way a
/// future finds the running loop, the hooks for wakes from other threads, the
/// snapshots a stepper reads, and the texts of the loop's reports.
pub mod hooks {
    pub use crate::core::{
        CALLBACK_PANICKED, CLOSE_HOOK_PANICKED, DROP_PANICKED, OBSERVER_PANICKED,
    };
    pub use crate::driver::{LayerSnapshot, Unpark, Unparker};
    pub use crate::event_loop::Snapshot;
    pub use crate::extensions::{Diagnostics, Extensions, note_wait};
    pub use crate::handle::{Callback, CancelFlag, Handle, SelfCancelling};
    pub use crate::off_thread::{OffThreadHooks, RemoteWake};
    pub use crate::ready::ReadyQueue;
    pub use crate::registry::{LoopId, registry_searches, with_current};
    pub use oneloop_task::hooks::HANDLER_PANICKED;
    pub use oneloop_task::hooks::{PANIC_WITHOUT_MESSAGE, drop_payload, panic_message};
}
