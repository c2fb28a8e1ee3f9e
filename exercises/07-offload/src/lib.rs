//! Stage 7 exercises: thread offload and the thread-safe wakeup.
//!
//! This crate is the reference crate `oneloop-offload` with three mechanisms cut out.
//! The files you edit are:
//!
//! - `src/threadsafe.rs` — exercise 1: `call_soon_threadsafe`'s push-then-wake
//!   (chapter 7.2);
//! - `src/worker.rs` — exercise 2: the pool's worker loop (chapter 7.3);
//! - `src/run_in_executor.rs` — exercise 3: submit a function, and hand its result back
//!   through `call_soon_threadsafe` with `Deliver::send` (chapter 7.3).
//!
//! Every other module comes from `crates/07-offload/src`, unchanged. Do not edit this
//! file. Test your work with `cargo course test 7`, or `cargo test -p ex07-offload`.
//! Exercise 3's tests also need exercises 1 and 2: its result travels through both.
#![forbid(unsafe_code)]
// Under the challenge, what only the challenge file calls looks unused until it is written.
#![cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    allow(dead_code, unused_imports)
)]
// The helpers that only the holes call look unused until the holes are written.
#![cfg_attr(not(feature = "solution"), allow(dead_code))]

#[path = "../../../crates/07-offload/src/deliver.rs"]
mod deliver;
#[path = "../../../crates/07-offload/src/driver.rs"]
mod driver;
#[path = "../../../crates/07-offload/src/error.rs"]
mod error;
#[path = "../../../crates/07-offload/src/handle.rs"]
mod handle;
#[path = "../../../crates/07-offload/src/idle_watch.rs"]
mod idle_watch;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/07-offload/src/inbox.rs"]
mod inbox;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/inbox.rs"
)]
mod inbox;
#[cfg(loom)]
#[doc(hidden)]
#[path = "../../../crates/07-offload/src/loom_model.rs"]
pub mod loom_model;
#[path = "../../../crates/07-offload/src/offload.rs"]
mod offload;
#[path = "../../../crates/07-offload/src/offload_loop.rs"]
mod offload_loop;
#[path = "../../../crates/07-offload/src/offloaded.rs"]
mod offloaded;
#[path = "../../../crates/07-offload/src/pool.rs"]
mod pool;

#[cfg(not(feature = "solution"))]
mod threadsafe;
#[cfg(feature = "solution")]
#[path = "../../../crates/07-offload/src/threadsafe.rs"]
mod threadsafe;

#[cfg(not(feature = "solution"))]
mod worker;
#[cfg(feature = "solution")]
#[path = "../../../crates/07-offload/src/worker.rs"]
mod worker;

#[cfg(not(feature = "solution"))]
mod run_in_executor;
#[cfg(feature = "solution")]
#[path = "../../../crates/07-offload/src/run_in_executor.rs"]
mod run_in_executor;

pub use driver::OffloadDriver;
pub use error::{LOOP_CLOSED, NO_OFFLOAD_LAYER, OffloadError, POOL_SHUT_DOWN};
pub use handle::LoopHandle;
pub use offload::{
    DEFAULT_SHUTDOWN_TIMEOUT, JOBS_LEFT, Offload, SHUTDOWN_LABEL, run_in_executor, to_thread,
};
pub use offload_loop::{OffloadLoop, new_driver, new_event_loop, run, run_debug, run_with};
pub use offloaded::{Offloaded, Outcome};
pub use pool::{DEFAULT_KEEP_ALIVE, ShutdownReport, ThreadPool, default_max_threads};
