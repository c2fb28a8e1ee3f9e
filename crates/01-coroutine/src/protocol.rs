//! The resume protocol: one trait for every computation that can stop halfway.
//!
//! A coroutine is a value. Calling [`Coroutine::resume`] runs it from where it last
//! stopped to its next suspension point, and hands back what happened there: it
//! *yielded* something and can be resumed again, or it *completed* with its return
//! value. Everything a caller may say to a suspended coroutine fits in [`Resume`]: a
//! value to send, or an error to raise at the point where it is waiting. Closing a
//! coroutine needs no method at all: dropping the value drops whatever its current
//! state holds, and those destructors are its cleanup.

use std::error::Error;
use std::fmt;

// ANCHOR: step
/// What one resume produced.
///
/// Python spells these two outcomes differently: a yielded value is what `send()`
/// returns, a return value travels inside `StopIteration.value`. Here both are plain data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<Y, R> {
    /// The coroutine stopped at a suspension point, handing out `Y`. Resume it to go on.
    Yielded(Y),
    /// The coroutine ran to its end and returned `R`. It must not be resumed again.
    Complete(R),
}
// ANCHOR_END: step

// ANCHOR: resume_input
/// What a resume delivers at the suspension point the coroutine is waiting at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume<T, E> {
    /// Go on; the pending `yield` evaluates to this value (Python: `gen.send(value)`).
    Send(T),
    /// Raise this error where the coroutine is waiting (Python: `gen.throw(exc)`). The
    /// coroutine may handle it and carry on, or let it end the coroutine.
    Throw(E),
}
// ANCHOR_END: resume_input

// ANCHOR: co_error
/// Why a resume produced no [`Step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoError<E> {
    /// The coroutine ended with an error: it let a thrown error through, or failed on
    /// its own. Like [`Step::Complete`], this is the end; it must not be resumed again.
    Raised(E),
    /// The coroutine had already ended (completed or raised) and was resumed anyway.
    ///
    /// This is the caller's bug, reported as a value instead of a wrong answer. Python
    /// reports the same misuse: an exhausted generator raises `StopIteration` again, and
    /// an awaited coroutine raises `RuntimeError: cannot reuse already awaited coroutine`.
    ResumedAfterCompletion,
}
// ANCHOR_END: co_error

impl<E: fmt::Display> fmt::Display for CoError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoError::Raised(error) => write!(f, "the coroutine raised: {error}"),
            CoError::ResumedAfterCompletion => f.write_str(
                "coroutine resumed after completion (it had already returned or raised)",
            ),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> Error for CoError<E> {}

/// The result of one resume: a [`Step`], or the reason there is none.
pub type Resumed<Y, R, E> = Result<Step<Y, R>, CoError<E>>;

// ANCHOR: coroutine
/// A computation that can suspend itself and be resumed from outside.
///
/// A fresh coroutine is already waiting for its first input: its first resume delivers
/// the value the body starts from (Rust's own coroutines bind it to the closure's
/// parameter; a Python generator would need a priming `next()` first). Each resume runs
/// the body up to its next suspension point and reports what happened there.
///
/// Once a resume has returned [`Step::Complete`] or [`CoError::Raised`], every further
/// resume must return [`CoError::ResumedAfterCompletion`].
pub trait Coroutine {
    /// What a resume sends in: the value of the pending `yield`.
    type Input;
    /// What the coroutine hands out each time it suspends.
    type Yield;
    /// What it returns when it completes.
    type Return;
    /// What can be thrown in, and what it can end with.
    type Error;

    /// Runs the coroutine from where it stopped to its next suspension point or its end.
    fn resume(
        &mut self,
        input: Resume<Self::Input, Self::Error>,
    ) -> Resumed<Self::Yield, Self::Return, Self::Error>;

    /// Resumes with a value: Python's `send`.
    fn send(&mut self, value: Self::Input) -> Resumed<Self::Yield, Self::Return, Self::Error> {
        self.resume(Resume::Send(value))
    }

    /// Resumes by raising `error` at the suspension point: Python's `throw`.
    fn throw(&mut self, error: Self::Error) -> Resumed<Self::Yield, Self::Return, Self::Error> {
        self.resume(Resume::Throw(error))
    }
}
// ANCHOR_END: coroutine

/// A boxed coroutine is a coroutine: chains of different machines can share one type.
impl<C: Coroutine + ?Sized> Coroutine for Box<C> {
    type Input = C::Input;
    type Yield = C::Yield;
    type Return = C::Return;
    type Error = C::Error;

    fn resume(
        &mut self,
        input: Resume<Self::Input, Self::Error>,
    ) -> Resumed<Self::Yield, Self::Return, Self::Error> {
        (**self).resume(input)
    }
}
