//! Stage 1 of oneloop: suspension as a value.
//!
//! An event loop can only share one thread among many computations if each of them can
//! *stop halfway* and be continued later. That is the whole of this stage: a
//! computation that can stop, held in an ordinary value. There is no loop here yet.
//!
//! - [`Coroutine`] is the protocol: [`resume`](Coroutine::resume) it with a [`Resume`]
//!   (a value to [`send`](Coroutine::send), or an error to [`throw`](Coroutine::throw)),
//!   and get back a [`Step`]: [`Yielded`](Step::Yielded) (it stopped, and can be
//!   resumed) or [`Complete`](Step::Complete) (it returned). An error it lets through
//!   comes back as [`CoError::Raised`]; resuming it after the end is
//!   [`CoError::ResumedAfterCompletion`], never a wrong value. Closing it is dropping it.
//! - [`Countdown`], [`Averager`], [`Login`] and [`Descend`] are coroutines written by
//!   hand: a struct holding an enum with one variant per place the body can be stopped.
//!   Each carries, in its docs, the Python generator it stands for.
//! - [`Trampoline`] runs a chain of coroutines that call one another (`yield from`,
//!   `await`) as a stack of values, so a chain of any depth runs without recursion.
//! - [`SumTwo`] is what `async fn` compiles to: the same kind of state machine, whose
//!   `poll` is `resume` with a `Context`. [`AsFuture`] turns any coroutine into a future
//!   the same way, and [`YieldNow`] is the smallest future that really suspends.
//!
//! # The asyncio counterpart
//!
//! Python generators and native coroutines: `send`, `throw`, `close`, and the return
//! value carried by `StopIteration.value`. asyncio's `Task` is, underneath, a loop
//! calling `coro.send(None)`; the coroutine's frame is the state it keeps in between.
//!
//! # Where Rust differs
//!
//! Python keeps a suspended frame on the heap, made by the interpreter. Rust has no
//! frames to keep: `async fn` is compiled into an enum, like the ones in this crate,
//! whose size is known at compile time. That is why a recursive `async fn` must be
//! boxed, and why awaiting something already ready costs a plain function call. Our
//! coroutines also start *primed*: a fresh one already waits for its first input, where
//! a Python generator needs a first `next()` to reach its first `yield`.
//!
//! # What this sets up for stage 2
//!
//! A [`Future`] is a coroutine with its types fixed: every resume
//! sends a `Context` (through which the future reaches its `Waker`), every yield is
//! `Poll::Pending`, completion is `Poll::Ready`. [`AsFuture`] shows it in a dozen lines.
//! What is still missing is the one thing a yield must arrange: *who* resumes it, and
//! *when*. Stage 2 builds that — `Poll`, `Context` and `Waker` for real, a one-shot
//! future resolved from outside (asyncio's `Future.set_result`), and `block_on`.
//!
//! ```
//! use oneloop_coroutine::{CoError, Coroutine, Countdown, Step};
//!
//! let mut countdown = Countdown::new(3);
//! let mut seen = Vec::new();
//! // Drive it by hand, as a Python `for` loop drives a generator.
//! let last = loop {
//!     match countdown.send(()) {
//!         Ok(Step::Yielded(n)) => seen.push(n),
//!         Ok(Step::Complete(word)) => break word,
//!         Err(error) => panic!("{error}"),
//!     }
//! };
//! assert_eq!(seen, [3, 2, 1]);
//! assert_eq!(last, "liftoff");
//! // Misuse is an error value, not a wrong answer.
//! assert_eq!(countdown.send(()), Err(CoError::ResumedAfterCompletion));
//! ```
#![forbid(unsafe_code)]

mod as_future;
mod as_future_poll;
mod averager;
mod countdown;
mod descend;
mod login;
mod login_resume;
mod protocol;
mod sum_two;
mod trampoline;
mod trampoline_resume;
mod yield_now;

pub use as_future::AsFuture;
pub use averager::{Averager, Interrupt};
pub use countdown::{COUNTDOWN_TRANSITIONS, Countdown, Transition};
pub use descend::Descend;
pub use login::{Login, LoginError, Prompt, Session};
pub use protocol::{CoError, Coroutine, Resume, Resumed, Step};
pub use sum_two::SumTwo;
pub use trampoline::{Frame, Op, Trampoline};
pub use yield_now::{YieldNow, yield_now};
