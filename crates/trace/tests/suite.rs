//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-trace --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

#[path = "capstone.rs"]
mod capstone;
#[path = "cpython.rs"]
mod cpython;
#[path = "diagrams.rs"]
mod diagrams;
#[path = "recording.rs"]
mod recording;
#[path = "trace.rs"]
mod trace;
