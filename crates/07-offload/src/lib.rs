//! Stage 7 of oneloop: thread offload, and the thread-safe wakeup.
//!
//! Up to stage 6 everything happened on the loop's thread: a callback, a task's step,
//! the sleep in `epoll_wait`. A call that blocks there (a slow syscall, a library with
//! no async API, a long computation) holds every task, every timer and every socket
//! until it returns. This stage lets such work leave the loop's thread, and come back.
//!
//! - A **thread pool** ([`ThreadPool`]) runs blocking jobs: a `Mutex` around a queue
//!   and a `Condvar` the idle workers wait on, at most `min(32, cpus + 4)` threads,
//!   started lazily, idle ones leaving after a while — asyncio's default
//!   `ThreadPoolExecutor`.
//! - **`call_soon_threadsafe`** ([`LoopHandle`]) is how a worker (or any thread) hands
//!   something back: it pushes a callback onto a locked inbox, *then* wakes the loop
//!   through a `mio::Waker`, an eventfd registered in the loop's poll. That is
//!   asyncio's self-pipe (`_write_to_self` writing a byte to `_csock`), in its modern
//!   Linux form. Task wakers called from other threads take the same path, where stage
//!   4's loop could only fail with an error naming this stage.
//! - **[`to_thread`]** and **[`run_in_executor`]** put the two together: submit `f` to
//!   the pool, and resolve a future on the loop when the worker's result arrives
//!   through `call_soon_threadsafe`. A panic in `f` comes out at the `await`, with its
//!   message.
//! - At exit, [`run`] shuts the default pool down from a close hook (asyncio's
//!   `shutdown_default_executor`): it waits for running jobs up to a timeout, then
//!   reports what it left.
//!
//! The layer is one more driver, [`OffloadDriver`], outermost in the stack over stage
//! 5's timers and stage 6's epoll: after each park it moves the inbox onto the ready
//! queue. The core gained only general hooks for it, both set when a driver is
//! installed: a driver may set an `Unparker` (the epoll driver sets its eventfd), and
//! a layer may take over the wakes that come from other threads (`RemoteWake`).
//!
//! Where Rust differs from asyncio:
//!
//! - CPython's threads share one interpreter lock, so two CPU-bound Python jobs in a
//!   thread pool take turns and finish no sooner than inline. Rust threads have no such
//!   lock: two CPU-bound jobs on two cores run at the same time.
//! - A oneloop loop is not `Send`, so other threads get a [`LoopHandle`], which says
//!   so clearly ([`OffloadError::LoopClosed`]) once the loop is closed or gone.
//! - Dropping the future does not stop the job (asyncio cannot cancel a running thread
//!   either); its result is dropped when it arrives.
//!
//! ```
//! use std::time::Duration;
//! use oneloop_offload::{run, to_thread};
//!
//! let (sum, blocked) = run(async {
//!     // A blocking call, moved off the loop's thread.
//!     let blocked = to_thread(|| {
//!         std::thread::sleep(Duration::from_millis(20));
//!         "slept on a worker"
//!     });
//!     let sum = to_thread(|| (1..=100u64).sum::<u64>()).await.expect("no panic");
//!     (sum, blocked.await.expect("no panic"))
//! })
//! .expect("main finishes");
//! assert_eq!(sum, 5050);
//! assert_eq!(blocked, "slept on a worker");
//!
//! let failed = run(async { to_thread(|| -> u8 { panic!("boom") }).await }).unwrap();
//! assert_eq!(failed.unwrap_err().to_string(), "the function run in the executor panicked: boom");
//! ```
#![forbid(unsafe_code)]

mod deliver;
mod driver;
mod error;
mod handle;
mod idle_watch;
mod inbox;
#[cfg(loom)]
#[doc(hidden)]
pub mod loom_model;
mod offload;
mod offload_loop;
mod offloaded;
mod pool;
mod run_in_executor;
mod threadsafe;
mod worker;

pub use driver::OffloadDriver;
pub use error::{LOOP_CLOSED, NO_OFFLOAD_LAYER, OffloadError, POOL_SHUT_DOWN};
pub use handle::LoopHandle;
pub use offload::{
    DEFAULT_SHUTDOWN_TIMEOUT, JOBS_LEFT, Offload, SHUTDOWN_LABEL, run_in_executor, to_thread,
};
pub use offload_loop::{OffloadLoop, new_driver, new_event_loop, run, run_debug, run_with};
pub use offloaded::{Offloaded, Outcome};
pub use pool::{DEFAULT_KEEP_ALIVE, ShutdownReport, ThreadPool, default_max_threads};
