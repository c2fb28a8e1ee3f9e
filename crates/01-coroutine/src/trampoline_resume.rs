//! Exercise 2: the trampoline's loop.

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
        let mut input = input;
        loop {
            // An empty stack means the root already ended: this resume is a misuse.
            let Some(top) = self.stack.last_mut() else {
                return Err(CoError::ResumedAfterCompletion);
            };
            match top.resume(input) {
                // The whole chain suspends; the top frame stays where it is.
                Ok(Step::Yielded(Op::Suspend(value))) => return Ok(Step::Yielded(value)),
                // A call: the child goes on top and starts with its argument.
                Ok(Step::Yielded(Op::Call { callee, arg })) => {
                    self.stack.push(callee);
                    input = Resume::Send(arg);
                }
                // The top frame returned: pop it, and its value goes to the parent.
                Ok(Step::Complete(value)) => {
                    self.stack.pop();
                    if self.stack.is_empty() {
                        return Ok(Step::Complete(value));
                    }
                    input = Resume::Send(value);
                }
                // The top frame raised: pop it, and throw the error into the parent,
                // at the point where it waits for the call — as `yield from` does.
                Err(CoError::Raised(error)) => {
                    self.stack.pop();
                    if self.stack.is_empty() {
                        return Err(CoError::Raised(error));
                    }
                    input = Resume::Throw(error);
                }
                // A frame that had already ended was left on the stack: that frame
                // broke the protocol; the chain cannot go on.
                Err(CoError::ResumedAfterCompletion) => {
                    self.stack.clear();
                    return Err(CoError::ResumedAfterCompletion);
                }
            }
        }
    }
}
