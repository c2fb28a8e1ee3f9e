//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-future --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

#[path = "done_callbacks.rs"]
mod done_callbacks;
#[path = "fan_out.rs"]
mod fan_out;
#[path = "lock_free_paths.rs"]
mod lock_free_paths;
#[path = "pinning.rs"]
mod pinning;
