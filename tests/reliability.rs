//! The reliability suite: one regression test per failure found by attacking the
//! runtime as a demanding user would — lost wakeups, starvation, fd exhaustion, panics
//! in every place user code runs, loops dropped in every state, misuse, and servers
//! hammered by real clients on 127.0.0.1. Each test failed before its fix.
//!
//! The tests are grouped by the layer they attack; each module says which failure each
//! test keeps fixed. Server attacks run the example servers as child processes
//! (`CARGO_BIN_EXE_…` is not available for examples, so they are started from the test
//! binaries that cargo builds beside this one), bounded in count and in time.

#[path = "reliability/io_fairness.rs"]
mod io_fairness;
#[path = "reliability/io_ownership.rs"]
mod io_ownership;
#[path = "reliability/node_interval.rs"]
mod node_interval;
#[path = "reliability/offload.rs"]
mod offload;
#[path = "reliability/shutdown.rs"]
mod shutdown;
#[path = "reliability/timer_model.rs"]
mod timer_model;
