//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex02-future -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

#[path = "block_on.rs"]
mod block_on;
#[path = "join.rs"]
mod join;
#[path = "oneshot.rs"]
mod oneshot;
#[path = "oneshot_protocol.rs"]
mod oneshot_protocol;
#[path = "raw_waker.rs"]
mod raw_waker;
#[path = "raw_waker_safety.rs"]
mod raw_waker_safety;
