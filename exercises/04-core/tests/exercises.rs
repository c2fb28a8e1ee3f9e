//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex04-core -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

#[path = "ex1_wake.rs"]
mod ex1_wake;
#[path = "ex2_alloc.rs"]
mod ex2_alloc;
#[path = "ex2_turn.rs"]
mod ex2_turn;
#[path = "ex3_gather.rs"]
mod ex3_gather;
#[path = "ex4_run.rs"]
mod ex4_run;
