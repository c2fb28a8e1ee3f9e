//! The reference's loom model of the inbox (`crates/07-offload/tests/loom.rs`), run on
//! this crate's inbox: with `--features challenge`, on your challenge file. The graded
//! tests run real threads, and the few orders they happen to meet rarely include the
//! one that loses a wake; loom tries every order. `cargo course test 7 --challenge`
//! runs it after the graded tests:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
//!     cargo test -p ex07-offload --features challenge --test loom
//! ```
//!
//! Only that cfg builds it (and loom); a plain `cargo test` skips this target.
#![cfg(loom)]

// The model names the reference crate; here it is this one.
extern crate ex07_offload as oneloop_offload;

#[path = "../../../crates/07-offload/tests/loom.rs"]
mod model;
