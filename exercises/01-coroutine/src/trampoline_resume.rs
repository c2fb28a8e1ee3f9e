//! Exercise 2: the trampoline's loop.
#![allow(unused_variables, unused_imports)]

use crate::protocol::{CoError, Coroutine, Resume, Resumed, Step};
use crate::trampoline::{Op, Trampoline};

impl<V, E> Coroutine for Trampoline<V, E> {
    type Input = V;
    type Yield = V;
    type Return = V;
    type Error = E;

    /// Delivers `input` to the innermost frame, then keeps the chain moving — pushing
    /// called frames, popping ended ones and handing their results to their parents —
    /// until a frame suspends with [`Op::Suspend`] or the root ends. Never recursive.
    fn resume(&mut self, input: Resume<V, E>) -> Resumed<V, V, E> {
        todo!(
            "stage 1, exercise 2: the trampoline's loop over its stack of frames, without \
             recursion — see chapter 1.3"
        )
    }
}
