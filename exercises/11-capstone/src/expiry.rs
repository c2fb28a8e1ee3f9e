//! Expiry: the two checks that make a key with a deadline disappear on time.
//!
//! The store (see [`store`](crate::store)) calls these two functions. The first is the
//! lazy check every read makes; the second puts the active half on the loop's timer
//! heap.
#![allow(unused_variables, unused_imports)]

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::time::Duration;

use crate::store::{Db, Entry, Expiry, Store, cancel, timers};

impl Store {
    /// The live entry of `key`, for a read at `now` (lazy expiry).
    ///
    /// A key whose deadline is at or before `now` is gone: its entry is removed, its
    /// timer cancelled (with [`cancel`]), `expired` counts it, and the answer is
    /// `None`, even though its timer has not fired yet.
    pub(crate) fn live(&mut self, key: &[u8], now: Duration) -> Option<&mut Entry> {
        todo!(
            "stage 11, exercise 2: the entry of a key not past its deadline; one past it \
             is deleted here — see chapter 11.3"
        )
    }
}

/// A timer on the loop's heap (`timers().call_at_named`) that deletes `key` at
/// `at`, and the [`Expiry`] that records both.
///
/// When it fires, the key is deleted (and counted in `expired`) only if its entry
/// still carries the deadline `at`: a key overwritten, deleted or given another
/// deadline since is left alone. The timer holds the store weakly: a pending timer
/// must not keep a dropped store alive.
pub(crate) fn schedule(db: &Db, key: &[u8], at: Duration) -> Expiry {
    todo!(
        "stage 11, exercise 2: a timer that deletes the key at its deadline, if it still \
         carries it — see chapter 11.3"
    )
}
