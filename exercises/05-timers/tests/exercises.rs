//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex05-timers -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

#[path = "debug_mode.rs"]
mod debug_mode;
#[path = "ex1_heap.rs"]
mod ex1_heap;
#[path = "ex2_timeout.rs"]
mod ex2_timeout;
#[path = "ex3_sweep.rs"]
mod ex3_sweep;
#[path = "ex4_sleep.rs"]
mod ex4_sleep;
#[path = "ex4_timelines.rs"]
mod ex4_timelines;
