//! Exercise 1's machine: a login dialogue, lowered from a generator by hand.
//!
//! This file holds the types; the transitions (`impl Coroutine for Login`) live in
//! `login_resume.rs`, the file the learner writes.

use std::fmt;

// ANCHOR: login
/// A login dialogue as a coroutine: send it a user name, then password guesses.
///
/// It stands for this Python generator (primed: a fresh `Login` already waits at the
/// first `yield`, so the first `send` is the user name):
///
/// ```python
/// def login(secret, max_tries):
///     user = yield                                  # Suspend0
///     attempt = 1
///     while True:
///         try:
///             guess = yield Prompt(user, attempt)   # Suspend1
///         except Timeout:
///             continue             # handled: ask again, for the same attempt
///         if guess == secret:
///             return Session(user, attempt)
///         if attempt == max_tries:
///             raise Locked(user)
///         attempt += 1
/// ```
///
/// Errors thrown at `Suspend0`, and errors other than [`LoginError::Timeout`] thrown at
/// `Suspend1`, are not handled: they end the coroutine with that error.
#[derive(Debug)]
pub struct Login {
    pub(crate) state: LoginState,
}

/// Where the body of `login` can be stopped, with the locals alive at each place.
#[derive(Debug)]
pub(crate) enum LoginState {
    /// At `user = yield`: only the arguments exist.
    Suspend0 { secret: String, max_tries: u32 },
    /// At `guess = yield Prompt(user, attempt)`.
    Suspend1 {
        secret: String,
        max_tries: u32,
        user: String,
        attempt: u32,
    },
    /// Returned or raised.
    Returned,
}
// ANCHOR_END: login

// ANCHOR: login_types
/// What the dialogue yields: a request for the password of `user`, try number `attempt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// Whose password is asked for.
    pub user: String,
    /// Which try this is, from 1.
    pub attempt: u32,
}

/// What the dialogue returns when a guess was right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Who logged in.
    pub user: String,
    /// On which try.
    pub attempts: u32,
}

/// What can be thrown into a [`Login`], and what it can end with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginError {
    /// The user was too slow; handled while a password is awaited (asked again).
    Timeout,
    /// Give up; never handled.
    Cancelled,
    /// Raised by the dialogue itself when `max_tries` guesses were wrong.
    Locked {
        /// Whose account is now locked.
        user: String,
    },
}
// ANCHOR_END: login_types

impl fmt::Display for LoginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoginError::Timeout => f.write_str("timed out"),
            LoginError::Cancelled => f.write_str("cancelled"),
            LoginError::Locked { user } => write!(f, "account {user:?} locked"),
        }
    }
}

impl Login {
    /// A dialogue accepting `secret`, allowing `max_tries` guesses (0 counts as 1).
    pub fn new(secret: impl Into<String>, max_tries: u32) -> Self {
        Self {
            state: LoginState::Suspend0 {
                secret: secret.into(),
                max_tries: max_tries.max(1),
            },
        }
    }
}
