//! Exercise 1: the transitions of [`Login`], written by hand from its generator.

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
        match (mem::replace(&mut self.state, LoginState::Returned), input) {
            (LoginState::Returned, _) => Err(CoError::ResumedAfterCompletion),
            // No `try` around the first yield: anything thrown there ends the body.
            (LoginState::Suspend0 { .. }, Resume::Throw(error)) => Err(CoError::Raised(error)),
            (LoginState::Suspend0 { secret, max_tries }, Resume::Send(user)) => {
                self.ask(secret, max_tries, user, 1)
            }
            // `except Timeout: continue` — same attempt, same prompt again.
            (
                LoginState::Suspend1 {
                    secret,
                    max_tries,
                    user,
                    attempt,
                },
                Resume::Throw(LoginError::Timeout),
            ) => self.ask(secret, max_tries, user, attempt),
            (LoginState::Suspend1 { .. }, Resume::Throw(error)) => Err(CoError::Raised(error)),
            (
                LoginState::Suspend1 {
                    secret,
                    max_tries,
                    user,
                    attempt,
                },
                Resume::Send(guess),
            ) => {
                if guess == secret {
                    Ok(Step::Complete(Session {
                        user,
                        attempts: attempt,
                    }))
                } else if attempt == max_tries {
                    Err(CoError::Raised(LoginError::Locked { user }))
                } else {
                    self.ask(secret, max_tries, user, attempt + 1)
                }
            }
        }
    }
}

impl Login {
    /// Suspends at `guess = yield Prompt(user, attempt)`, keeping the live locals.
    fn ask(
        &mut self,
        secret: String,
        max_tries: u32,
        user: String,
        attempt: u32,
    ) -> Resumed<Prompt, Session, LoginError> {
        let prompt = Prompt {
            user: user.clone(),
            attempt,
        };
        self.state = LoginState::Suspend1 {
            secret,
            max_tries,
            user,
            attempt,
        };
        Ok(Step::Yielded(prompt))
    }
}
