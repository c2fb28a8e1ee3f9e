//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex07-offload -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

#[path = "ex1_threadsafe.rs"]
mod ex1_threadsafe;
#[path = "ex2_pool.rs"]
mod ex2_pool;
#[path = "ex3_to_thread.rs"]
mod ex3_to_thread;
