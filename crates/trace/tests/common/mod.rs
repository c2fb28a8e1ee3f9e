//! Helpers shared by this crate's test files.
#![allow(dead_code)]

pub mod recording_json;
