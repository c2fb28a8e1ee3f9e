//! The poll timeout rule: libuv's `uv__backend_timeout`.
#![allow(unused_variables, unused_imports)]

use crate::{PollFacts, PollTimeout};

/// How long the poll phase may block, by libuv's rule.
///
/// - Zero if the loop is stopping, or nothing is alive, or pending callbacks, queued
///   immediates or close callbacks wait: each of those must run in this iteration, so
///   the poll may only look.
/// - Otherwise until the earliest timer's deadline (zero if it has passed already).
/// - Otherwise for ever: only an I/O event can wake the loop.
pub fn poll_timeout(facts: &PollFacts) -> PollTimeout {
    todo!(
        "stage 8, exercise 2: zero when the poll must not wait, else until the next \
         timer, else Forever — see chapter 8.4"
    )
}
