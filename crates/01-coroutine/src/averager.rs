//! A coroutine fed by `send`, that handles one kind of thrown error and not another.

use std::fmt;
use std::mem;

use crate::protocol::{CoError, Coroutine, Resume, Resumed, Step};

// ANCHOR: averager
/// Keeps a running average of the readings sent to it.
///
/// Every `send(Some(x))` yields the average so far; `send(None)` ends it, returning how
/// many readings it averaged. A thrown [`Interrupt::Reset`] is handled: the totals start
/// again and the coroutine carries on. Any other thrown error ends it. The Python it
/// stands for (oneloop's coroutines start primed, already waiting at the first `yield`):
///
/// ```python
/// def averager():
///     total, count = 0.0, 0
///     while True:
///         try:
///             reading = yield (total / count if count else None)   # Suspend0
///         except Reset:
///             total, count = 0.0, 0          # handled: carry on from the loop's top
///             continue
///         if reading is None:
///             return count
///         total += reading
///         count += 1
/// ```
#[derive(Debug)]
pub struct Averager {
    state: AveragerState,
}

#[derive(Debug)]
enum AveragerState {
    /// Stopped at the `yield`, with the two locals that live across it. A fresh averager
    /// starts here, primed, so there is no separate `Unresumed` state to write.
    Suspend0 { total: f64, count: u32 },
    /// Returned or raised.
    Returned,
}
// ANCHOR_END: averager

/// The errors an [`Averager`] can be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// Forget the readings so far; the averager handles this one and continues.
    Reset,
    /// Stop now; the averager does not handle this, so it ends with it.
    Cancel,
}

impl fmt::Display for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Interrupt::Reset => f.write_str("reset"),
            Interrupt::Cancel => f.write_str("cancelled"),
        }
    }
}

impl Averager {
    /// An averager with no readings yet.
    pub fn new() -> Self {
        Self {
            state: AveragerState::Suspend0 {
                total: 0.0,
                count: 0,
            },
        }
    }
}

impl Default for Averager {
    fn default() -> Self {
        Self::new()
    }
}

// ANCHOR: averager_resume
impl Coroutine for Averager {
    type Input = Option<f64>;
    type Yield = Option<f64>;
    type Return = u32;
    type Error = Interrupt;

    fn resume(
        &mut self,
        input: Resume<Option<f64>, Interrupt>,
    ) -> Resumed<Option<f64>, u32, Interrupt> {
        let AveragerState::Suspend0 {
            mut total,
            mut count,
        } = mem::replace(&mut self.state, AveragerState::Returned)
        else {
            return Err(CoError::ResumedAfterCompletion);
        };
        match input {
            // The `except Reset:` clause: the error is handled at the yield.
            Resume::Throw(Interrupt::Reset) => (total, count) = (0.0, 0),
            // No clause matches: the error leaves the body; the state stays `Returned`.
            Resume::Throw(other) => return Err(CoError::Raised(other)),
            Resume::Send(None) => return Ok(Step::Complete(count)),
            Resume::Send(Some(reading)) => {
                total += reading;
                count += 1;
            }
        }
        // Back at the top of the loop: suspend at the yield again.
        self.state = AveragerState::Suspend0 { total, count };
        Ok(Step::Yielded((count > 0).then(|| total / f64::from(count))))
    }
}
// ANCHOR_END: averager_resume
