//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex08-node -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

#[path = "ex1_drain.rs"]
mod ex1_drain;
#[path = "ex2_poll_timeout.rs"]
mod ex2_poll_timeout;
#[path = "ex3_phases.rs"]
mod ex3_phases;
#[path = "ex4_promises.rs"]
mod ex4_promises;
