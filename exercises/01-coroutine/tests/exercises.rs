//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex01-coroutine -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

#[path = "async_fn.rs"]
mod async_fn;
#[path = "lowering.rs"]
mod lowering;
#[path = "trampoline.rs"]
mod trampoline;
