//! Capstone exercises: the Redis-compatible server.
//!
//! This crate is the reference crate `capstone-redis` with four mechanisms cut out.
//! The files you edit are:
//!
//! - `src/parse.rs` — exercise 1: the incremental RESP parser over a partial buffer
//!   (chapter 11.1);
//! - `src/expiry.rs` — exercise 2: expiry, lazy on every read and active on the
//!   timer heap (chapter 11.3);
//! - `src/bound.rs` — exercise 3: the output bound that disconnects a slow subscriber
//!   (chapter 11.4);
//! - `src/shutdown.rs` — exercise 4: the shutdown sequence (chapter 11.5).
//!
//! Every other module comes from `crates/11-capstone/src`, unchanged. Do not edit this
//! file. Test your work with `cargo course test 11`, or `cargo test -p ex11-capstone`.
#![forbid(unsafe_code)]
// Under the challenge, what only the challenge file calls looks unused until it is written.
#![cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    allow(dead_code, unused_imports)
)]
// The helpers that only the holes call look unused until the holes are written.
#![cfg_attr(not(feature = "solution"), allow(dead_code))]

#[path = "../../../crates/11-capstone/src/commands.rs"]
mod commands;
#[path = "../../../crates/11-capstone/src/connection.rs"]
mod connection;
#[path = "../../../crates/11-capstone/src/frame.rs"]
mod frame;
#[path = "../../../crates/11-capstone/src/limits.rs"]
mod limits;
#[path = "../../../crates/11-capstone/src/outbox.rs"]
mod outbox;
#[path = "../../../crates/11-capstone/src/pubsub.rs"]
mod pubsub;
#[path = "../../../crates/11-capstone/src/server.rs"]
mod server;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/11-capstone/src/store.rs"]
pub mod store;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/store.rs"
)]
pub mod store;

#[cfg(not(feature = "solution"))]
mod parse;
#[cfg(feature = "solution")]
#[path = "../../../crates/11-capstone/src/parse.rs"]
mod parse;

#[cfg(not(feature = "solution"))]
mod expiry;
#[cfg(feature = "solution")]
#[path = "../../../crates/11-capstone/src/expiry.rs"]
mod expiry;

#[cfg(not(feature = "solution"))]
mod bound;
#[cfg(feature = "solution")]
#[path = "../../../crates/11-capstone/src/bound.rs"]
mod bound;

#[cfg(not(feature = "solution"))]
mod shutdown;
#[cfg(feature = "solution")]
#[path = "../../../crates/11-capstone/src/shutdown.rs"]
mod shutdown;

pub use commands::{After, COMMANDS, Client, execute};
pub use connection::Ending;
pub use frame::Frame;
pub use limits::{DEFAULT_LIMITS, Limits, ParseError};
pub use outbox::{Closed, Outbox};
pub use parse::parse;
pub use pubsub::PubSub;
pub use server::{Config, MAX_CLIENTS_REACHED, Server, ShutdownReport, Stats};
pub use store::{Db, new_db};
