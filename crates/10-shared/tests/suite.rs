//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-shared --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.
//!
//! `tests/tree_figure.rs` is a binary of its own: see Cargo.toml.

/// The whole name the test harness gives the test `name` of the module whose
/// `module_path!()` is `module`: the module's path without the crate's name, then
/// `name`. A test that runs the binary again for one test (`--exact`) filters with it.
fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

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
