//! The course behind `cargo course`: oneloop's stages, their exercises, and the learner's
//! progress through them.
//!
//! Each stage is a folder `exercises/NN-name/` holding a `course.toml` (its catalog
//! entry), a `hints.md`, and an exercise crate whose tests are named by exercise
//! (`ex2_…` checks exercise 2). This library reads those files and the output of
//! `cargo test`; the `course` binary turns them into a progress table, hints, solutions
//! and a verification of the whole course. The integrity suites in `tests/` use the same
//! readers, so the course and its checks agree on what a stage is.
//!
//! ```no_run
//! use oneloop_course::{Catalog, workspace};
//!
//! let root = workspace::current_root()?;
//! let catalog = Catalog::load(&root)?;
//! for stage in &catalog.stages {
//!     println!("stage {}: {} ({} exercises)", stage.number, stage.title, stage.exercises.len());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! TOML (`course.toml` and the crates' `Cargo.toml`) is read with `toml`'s parser into
//! typed structs, through one reader ([`toml_file`]); no `serde` derive, for the reason
//! that module gives.

#![forbid(unsafe_code)]

pub mod cache;
pub mod catalog;
pub mod compiler_error;
pub mod hints;
pub mod hole;
pub mod manifest;
pub mod progress;
pub mod summary;
pub mod test_output;
pub mod toml_file;
pub mod workspace;

pub use catalog::{Catalog, Challenge, Exercise, Stage};
pub use toml_file::ParseError;
