//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-shared --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.
//!
//! `tests/tree_figure.rs` is a binary of its own: see Cargo.toml.

#[path = "against_311.rs"]
mod against_311;
#[path = "introspect.rs"]
mod introspect;
#[path = "introspect_attack.rs"]
mod introspect_attack;
#[path = "shared.rs"]
mod shared;
#[path = "tree.rs"]
mod tree;
#[path = "tree_asyncio.rs"]
mod tree_asyncio;
#[path = "tree_cost.rs"]
mod tree_cost;
#[path = "tree_scale.rs"]
mod tree_scale;
