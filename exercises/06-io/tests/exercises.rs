//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex06-io -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.
//!
//! `tests/ex2_idle.rs` is a binary of its own: see Cargo.toml.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

#[path = "ex1_alloc.rs"]
mod ex1_alloc;
#[path = "ex1_driver.rs"]
mod ex1_driver;
#[path = "ex2_readiness.rs"]
mod ex2_readiness;
#[path = "ex3_streams.rs"]
mod ex3_streams;
#[path = "ex4_echo.rs"]
mod ex4_echo;
