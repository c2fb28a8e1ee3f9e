//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-node --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

/// The `side_by_side` example's program, which `side_by_side` and `side_by_side_rows`
/// pin (`use crate::scenario`).
#[path = "../examples/side_by_side/scenario.rs"]
mod scenario;

#[path = "alive.rs"]
mod alive;
#[path = "misuse.rs"]
mod misuse;
#[path = "scenarios_both_clocks.rs"]
mod scenarios_both_clocks;
#[path = "side_by_side.rs"]
mod side_by_side;
#[path = "side_by_side_rows.rs"]
mod side_by_side_rows;
#[path = "timer_methods.rs"]
mod timer_methods;
