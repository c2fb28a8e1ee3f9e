//! The exercise tests of this stage, in one binary. The files beside this one are its
//! modules, each at its own path; a test is named `file::exM_…` after the exercise it
//! checks. `cargo course test N` runs each exercise's tests in a process of its own;
//! with cargo, `cargo test -p ex11-capstone -- ex2_` runs exercise 2's.
//!
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// Helpers shared by the files below (`tests/common/mod.rs`).
mod common;

/// The binary's one global allocator, for `ex1_parse`'s count of the bytes a waiting
/// parse reserves. It counts per thread, so the other tests of the binary stay out of
/// that count.
#[global_allocator]
static ALLOC: oneloop_testkit::CountingAllocator = oneloop_testkit::CountingAllocator::new();

#[path = "ex1_parse.rs"]
mod ex1_parse;
#[path = "ex2_expiry.rs"]
mod ex2_expiry;
#[path = "ex3_bound.rs"]
mod ex3_bound;
#[path = "ex4_shutdown.rs"]
mod ex4_shutdown;
