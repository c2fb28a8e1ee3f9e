//! The smallest useful state machine: a countdown, lowered by hand.

use std::convert::Infallible;
use std::mem;

use crate::protocol::{CoError, Coroutine, Resume, Resumed, Step};

// ANCHOR: countdown
/// Counts down from `n`, yielding each number, then returns `"liftoff"`.
///
/// It stands for this Python generator (and for the Rust coroutine with the same body):
///
/// ```python
/// def countdown(n):
///     while n > 0:
///         yield n          # the only suspension point: state Suspend0
///         n -= 1
///     return "liftoff"
/// ```
#[derive(Debug)]
pub struct Countdown {
    state: CountdownState,
}

/// One variant per place the body can be stopped at; each holds the locals alive there.
/// The names are the ones rustc gives the variants of the coroutines it generates. rustc
/// has one more, `Panicked`, for a body that unwound; here `resume` leaves `Returned`
/// behind before running any of the body, so a panic mid-resume ends the machine too.
#[derive(Debug)]
enum CountdownState {
    /// Created, not yet started: only the argument exists.
    Unresumed { n: u32 },
    /// Stopped at `yield n`; `n` is the one local that lives across it.
    Suspend0 { n: u32 },
    /// Returned; nothing is alive any more.
    Returned,
}
// ANCHOR_END: countdown

impl Countdown {
    /// A countdown from `n`; nothing runs until the first resume.
    pub fn new(n: u32) -> Self {
        Self {
            state: CountdownState::Unresumed { n },
        }
    }

    /// The name of the state the countdown is stopped in: `"Unresumed"`, `"Suspend0"`
    /// or `"Returned"` (what [`COUNTDOWN_TRANSITIONS`] calls it).
    pub fn state_name(&self) -> &'static str {
        match self.state {
            CountdownState::Unresumed { .. } => "Unresumed",
            CountdownState::Suspend0 { .. } => "Suspend0",
            CountdownState::Returned => "Returned",
        }
    }
}

// ANCHOR: countdown_transitions
/// One arrow of the countdown's state diagram: from a state, under a condition, to a
/// state, with what `resume` returns on the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// The state `resume` is called in.
    pub from: &'static str,
    /// When this arrow is taken (`n` is the local the state holds).
    pub when: &'static str,
    /// The state `resume` leaves behind.
    pub to: &'static str,
    /// What `resume` returns: `"Yielded"`, `"Complete"` or `"Err"`.
    pub returns: &'static str,
}

/// Every transition [`Countdown`]'s `resume` makes. The book's state diagram is drawn
/// from this table, and a test drives the real machine to check that `resume` makes
/// exactly these moves, each under its condition.
pub const COUNTDOWN_TRANSITIONS: [Transition; 5] = [
    Transition {
        from: "Unresumed",
        when: "n > 0",
        to: "Suspend0",
        returns: "Yielded",
    },
    Transition {
        from: "Unresumed",
        when: "n == 0",
        to: "Returned",
        returns: "Complete",
    },
    Transition {
        from: "Suspend0",
        when: "n - 1 > 0",
        to: "Suspend0",
        returns: "Yielded",
    },
    Transition {
        from: "Suspend0",
        when: "n - 1 == 0",
        to: "Returned",
        returns: "Complete",
    },
    Transition {
        from: "Returned",
        when: "always",
        to: "Returned",
        returns: "Err",
    },
];
// ANCHOR_END: countdown_transitions

// ANCHOR: countdown_resume
impl Coroutine for Countdown {
    type Input = ();
    type Yield = u32;
    type Return = &'static str;
    type Error = Infallible;

    fn resume(&mut self, input: Resume<(), Infallible>) -> Resumed<u32, &'static str, Infallible> {
        // Nothing can be thrown into a countdown: `Infallible` has no values.
        let Resume::Send(()) = input;
        // Take the state out, leaving `Returned` behind: whatever happens below, a
        // stale state can never be resumed twice.
        let n = match mem::replace(&mut self.state, CountdownState::Returned) {
            // First resume: enter the body at the top of the loop.
            CountdownState::Unresumed { n } => n,
            // Resumed at `yield n`: run the statement after it, `n -= 1`.
            CountdownState::Suspend0 { n } => n - 1,
            CountdownState::Returned => return Err(CoError::ResumedAfterCompletion),
        };
        // `while n > 0`: either suspend again, or fall off the end and return.
        if n > 0 {
            self.state = CountdownState::Suspend0 { n };
            Ok(Step::Yielded(n))
        } else {
            Ok(Step::Complete("liftoff"))
        }
    }
}
// ANCHOR_END: countdown_resume
