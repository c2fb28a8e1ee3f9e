//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-timers --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.
//!
//! `tests/slow_line.rs` is a binary of its own: see Cargo.toml.

#[path = "loop_methods.rs"]
mod loop_methods;
#[path = "real_clock.rs"]
mod real_clock;
#[path = "shared_deadline.rs"]
mod shared_deadline;
#[path = "sleep_cost.rs"]
mod sleep_cost;
#[path = "waking_timers.rs"]
mod waking_timers;
