//! Exercise 1: the transitions of [`Login`], written by hand from its generator.
#![allow(unused_variables, unused_imports)]

use std::mem;

use crate::login::{Login, LoginError, LoginState, Prompt, Session};
use crate::protocol::{CoError, Coroutine, Resume, Resumed, Step};

impl Coroutine for Login {
    type Input = String;
    type Yield = Prompt;
    type Return = Session;
    type Error = LoginError;

    /// Runs the body of `login` from the state it is stopped in to the next `yield`,
    /// the `return`, or an unhandled error (see [`Login`] for the generator).
    fn resume(
        &mut self,
        input: Resume<String, LoginError>,
    ) -> Resumed<Prompt, Session, LoginError> {
        todo!(
            "stage 1, exercise 1: lower `login` into resume transitions, one match arm per \
             (state, input) pair — see chapter 1.2"
        )
    }
}
