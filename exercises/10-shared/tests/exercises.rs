//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex10-shared -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

#[path = "ex1_lock.rs"]
mod ex1_lock;
#[path = "ex2_queue.rs"]
mod ex2_queue;
#[path = "ex3_local.rs"]
mod ex3_local;
#[path = "ex4_walk.rs"]
mod ex4_walk;
