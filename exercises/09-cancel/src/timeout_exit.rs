//! The exit of a timeout scope: was this cancel ours?
#![allow(unused_variables, unused_imports)]

use crate::{Error, TaskRef};

/// Decides what a timeout scope returns once its body ended with `result`.
///
/// `cancelling_at_entry` is `task.cancelling()` read when the scope began; `expired`
/// says whether the scope's deadline passed (the scope then cancelled `task` once).
///
/// - Not expired: `result`, unchanged.
/// - Expired: take the scope's own request back (`task.uncancel()`, exactly once).
///   If what is left is no more than at entry (no request from outside arrived) and
///   the body ended cancelled, return `Err(Error::TimedOut)`; otherwise `result`
///   unchanged (an outer cancel stays a cancel; a body that finished anyway keeps
///   its value).
pub fn timeout_exit<T>(
    task: &TaskRef,
    cancelling_at_entry: u32,
    expired: bool,
    result: Result<T, Error>,
) -> Result<T, Error> {
    todo!(
        "stage 9, exercise 2: uncancel once if expired, and turn a cancel into TimedOut \
         only when no outer request is left — see chapter 9.3"
    )
}
