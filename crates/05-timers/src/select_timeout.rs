//! The select timeout: how long the loop may sleep in this turn.

use std::time::Duration;

use crate::MAXIMUM_SELECT_TIMEOUT;

// ANCHOR: select_timeout
/// The timeout to park with, given what the layer above asked (`asked`), the earliest
/// deadline in the heap (`earliest`) and the time `now` (step 2 of asyncio's
/// `_run_once`).
///
/// - No timer: `asked`, unchanged (zero if something is ready or the loop is stopping,
///   `None` to wait until something happens).
/// - A timer: the time left until its deadline, clamped to
///   `[0, MAXIMUM_SELECT_TIMEOUT]` (a deadline already past gives zero), and never
///   longer than `asked`.
pub fn select_timeout(
    asked: Option<Duration>,
    earliest: Option<Duration>,
    now: Duration,
) -> Option<Duration> {
    let Some(when) = earliest else {
        return asked;
    };
    let until = when.saturating_sub(now).min(MAXIMUM_SELECT_TIMEOUT);
    Some(asked.map_or(until, |asked| asked.min(until)))
}
// ANCHOR_END: select_timeout
