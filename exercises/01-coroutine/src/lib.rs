//! Stage 1 exercises: coroutines, suspension as a value.
//!
//! This crate is the reference crate `oneloop-coroutine` with three holes. Do not edit
//! this file; write the bodies marked `todo!` in:
//!
//! 1. `src/login_resume.rs` — lower the `login` generator into `resume` transitions
//!    (chapter 1.2).
//! 2. `src/trampoline_resume.rs` — the trampoline's loop, which runs a chain of
//!    coroutines without recursion (chapter 1.3).
//! 3. `src/as_future_poll.rs` — `poll` as `resume` with a `Context` (chapter 1.4).
//!
//! Test with `cargo course test 1`, or `cargo test -p ex01-coroutine`; ask for a hint
//! with `cargo course hint 1`.
#![forbid(unsafe_code)]
// Under the challenge, what only the challenge file calls looks unused until it is written.
#![cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    allow(dead_code, unused_imports)
)]

// The reference crate's own files, shared as they are.
#[path = "../../../crates/01-coroutine/src/as_future.rs"]
mod as_future;
#[path = "../../../crates/01-coroutine/src/averager.rs"]
mod averager;
#[path = "../../../crates/01-coroutine/src/countdown.rs"]
mod countdown;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/01-coroutine/src/descend.rs"]
mod descend;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/descend.rs"
)]
mod descend;
// Until exercise 1 is written, nothing reads the login's states.
#[cfg_attr(not(feature = "solution"), allow(dead_code))]
#[path = "../../../crates/01-coroutine/src/login.rs"]
mod login;
#[path = "../../../crates/01-coroutine/src/protocol.rs"]
mod protocol;
#[path = "../../../crates/01-coroutine/src/sum_two.rs"]
mod sum_two;
#[path = "../../../crates/01-coroutine/src/trampoline.rs"]
mod trampoline;
#[path = "../../../crates/01-coroutine/src/yield_now.rs"]
mod yield_now;

// The files you write (or, with `--features solution`, the reference's).
#[cfg(not(feature = "solution"))]
mod as_future_poll;
#[cfg(feature = "solution")]
#[path = "../../../crates/01-coroutine/src/as_future_poll.rs"]
mod as_future_poll;
#[cfg(not(feature = "solution"))]
mod login_resume;
#[cfg(feature = "solution")]
#[path = "../../../crates/01-coroutine/src/login_resume.rs"]
mod login_resume;
#[cfg(not(feature = "solution"))]
mod trampoline_resume;
#[cfg(feature = "solution")]
#[path = "../../../crates/01-coroutine/src/trampoline_resume.rs"]
mod trampoline_resume;

pub use as_future::AsFuture;
pub use averager::{Averager, Interrupt};
pub use countdown::{COUNTDOWN_TRANSITIONS, Countdown, Transition};
pub use descend::Descend;
pub use login::{Login, LoginError, Prompt, Session};
pub use protocol::{CoError, Coroutine, Resume, Resumed, Step};
pub use sum_two::SumTwo;
pub use trampoline::{Frame, Op, Trampoline};
pub use yield_now::{YieldNow, yield_now};
