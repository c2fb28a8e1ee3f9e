//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-cancel --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

#[path = "against_311.rs"]
mod against_311;
#[path = "cancel.rs"]
mod cancel;
#[path = "eager.rs"]
mod eager;
#[path = "gotchas.rs"]
mod gotchas;
#[path = "group_turns.rs"]
mod group_turns;
#[path = "point_cost.rs"]
mod point_cost;
#[path = "points.rs"]
mod points;
#[path = "safety.rs"]
mod safety;
#[path = "shutdown.rs"]
mod shutdown;
