//! The poll timeout rule: libuv's `uv__backend_timeout`.

use crate::{PollFacts, PollTimeout};

// ANCHOR: poll_timeout
/// How long the poll phase may block, by libuv's rule.
///
/// - Zero if the loop is stopping, or nothing is alive, or pending callbacks, queued
///   immediates or close callbacks wait: each of those must run in this iteration, so
///   the poll may only look.
/// - Otherwise until the earliest timer's deadline (zero if it has passed already).
/// - Otherwise for ever: only an I/O event can wake the loop.
pub fn poll_timeout(facts: &PollFacts) -> PollTimeout {
    if facts.stopping || !facts.alive || facts.pending || facts.immediates || facts.closing {
        return PollTimeout::Millis(0);
    }
    match facts.next_timer {
        Some(deadline) => PollTimeout::Millis(deadline.saturating_sub(facts.now)),
        None => PollTimeout::Forever,
    }
}
// ANCHOR_END: poll_timeout
