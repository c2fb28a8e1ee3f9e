//! A recursive coroutine, to run on a [`Trampoline`](crate::Trampoline).
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::mem;

use crate::protocol::{CoError, Coroutine, Resume, Resumed, Step};
use crate::trampoline::{Frame, Op};

/// Calls itself `n` levels deep, then counts the levels on the way back up.
///
/// Its first input is `n`. It stands for this recursive generator (or, in Rust, a
/// recursive `async fn`, which needs `Box::pin` for the same reason this frame is boxed:
/// a coroutine cannot contain itself):
///
/// ```python
/// def descend(n):
///     if n == 0:
///         return 0
///     below = yield from descend(n - 1)     # Suspend0
///     return below + 1
/// ```
#[derive(Debug, Default)]
pub struct Descend {
    state: DescendState,
}

#[derive(Debug, Default)]
enum DescendState {
    /// Waiting for `n`, its first input.
    #[default]
    Unresumed,
    /// Waiting at `yield from descend(n - 1)`; nothing else is alive.
    Suspend0,
    /// Returned or raised.
    Returned,
}

impl Coroutine for Descend {
    type Input = u64;
    type Yield = Op<u64, String>;
    type Return = u64;
    type Error = String;

    fn resume(&mut self, input: Resume<u64, String>) -> Resumed<Op<u64, String>, u64, String> {
        todo!("stage 1, challenge: the recursive descent; see chapter 1.3")
    }
}

impl Descend {
    /// A fresh frame, waiting for its `n`.
    pub fn new() -> Self {
        todo!("stage 1, challenge: the recursive descent; see chapter 1.3")
    }
}
