//! A trampoline: the driver that runs a chain of coroutines calling one another.
//!
//! Python's `yield from` (and `await` on a coroutine) lets one generator run another to
//! completion. Written by hand, the tempting version is recursive — the parent's
//! `resume` calls the child's `resume` — and then every resume walks the whole chain on
//! the Rust stack, and a deep enough chain overflows it. A trampoline keeps the chain
//! as data instead: a stack of suspended frames in a `Vec`. A frame asks for a call by
//! *yielding* [`Op::Call`]; the trampoline pushes the child, runs it, and when it
//! returns, pops it and resumes the parent with the return value. Only the frame on top
//! ever runs, so the Rust stack stays one call deep whatever the chain's length.
//!
//! This file holds the types; the loop itself (`impl Coroutine for Trampoline`) lives in
//! `trampoline_resume.rs`, the file the learner writes.

use std::fmt;

use crate::protocol::Coroutine;

// ANCHOR: frame
/// One coroutine of a chain. All frames of a chain share one value type `V` (their
/// inputs and returns, as in a dynamically typed language) and one error type `E`.
pub type Frame<V, E> = Box<dyn Coroutine<Input = V, Yield = Op<V, E>, Return = V, Error = E>>;

/// What a frame yields to its trampoline.
pub enum Op<V, E> {
    /// Run `callee` to its end, starting it with `arg` (its first input), then resume me
    /// with its return value — or, if it raised, throw its error into me. Python:
    /// `result = yield from callee(arg)`; Rust: `let result = callee(arg).await;`.
    Call {
        /// The frame to run; the trampoline owns it until it ends.
        callee: Frame<V, E>,
        /// The child's first input.
        arg: V,
    },
    /// Suspend the whole chain, handing `V` to whoever drives the trampoline; the next
    /// value sent to the trampoline comes back here. Python: a bare `yield` deep in a
    /// `yield from` chain, which travels up to the code calling `send`.
    Suspend(V),
}
// ANCHOR_END: frame

impl<V: fmt::Debug, E> fmt::Debug for Op<V, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Call { arg, .. } => f
                .debug_struct("Call")
                .field("arg", arg)
                .finish_non_exhaustive(),
            Op::Suspend(value) => f.debug_tuple("Suspend").field(value).finish(),
        }
    }
}

// ANCHOR: trampoline
/// Runs a chain of [`Frame`]s without recursion. It is itself a coroutine: what the
/// innermost frame suspends with comes out of the trampoline's resume, and what is sent
/// (or thrown) into the trampoline goes to the innermost frame.
pub struct Trampoline<V, E> {
    /// The suspended chain: the root at the bottom, the running frame on top. Empty once
    /// the root has returned or raised.
    pub(crate) stack: Vec<Frame<V, E>>,
}
// ANCHOR_END: trampoline

impl<V, E> Trampoline<V, E> {
    /// A trampoline whose chain is `root` alone. Its first resume starts `root`.
    pub fn new(root: Frame<V, E>) -> Self {
        Self { stack: vec![root] }
    }

    /// How many frames the chain holds now (0 once it has ended).
    pub fn frames(&self) -> usize {
        self.stack.len()
    }
}

impl<V, E> fmt::Debug for Trampoline<V, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trampoline")
            .field("frames", &self.stack.len())
            .finish()
    }
}
