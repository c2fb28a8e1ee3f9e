//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-offload --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.
//!
//! `tests/loom.rs` is a binary of its own: see Cargo.toml.

#[path = "idle_threads.rs"]
mod idle_threads;
#[path = "install.rs"]
mod install;
