//! Expiry: the two checks that make a key with a deadline disappear on time.
//!
//! The store (see [`store`](crate::store)) calls these two functions. The first is the
//! lazy check every read makes; the second puts the active half on the loop's timer
//! heap.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::time::Duration;

use crate::store::{Db, Entry, Expiry, Store, cancel, timers};

// ANCHOR: live
impl Store {
    /// The live entry of `key`, for a read at `now` (lazy expiry).
    ///
    /// A key whose deadline is at or before `now` is gone: its entry is removed, its
    /// timer cancelled (with [`cancel`]), `expired` counts it, and the answer is
    /// `None`, even though its timer has not fired yet.
    pub(crate) fn live(&mut self, key: &[u8], now: Duration) -> Option<&mut Entry> {
        let past = match self.entries.get(key) {
            Some(entry) => entry.expiry.as_ref().is_some_and(|e| e.at <= now),
            None => return None,
        };
        if past {
            if let Some(entry) = self.entries.remove(key) {
                cancel(entry);
            }
            self.expired += 1;
            return None;
        }
        self.entries.get_mut(key)
    }
}
// ANCHOR_END: live

// ANCHOR: schedule
/// A timer on the loop's heap (`timers().call_at_named`) that deletes `key` at
/// `at`, and the [`Expiry`] that records both.
///
/// When it fires, the key is deleted (and counted in `expired`) only if its entry
/// still carries the deadline `at`: a key overwritten, deleted or given another
/// deadline since is left alone. The timer holds the store weakly: a pending timer
/// must not keep a dropped store alive.
pub(crate) fn schedule(db: &Db, key: &[u8], at: Duration) -> Expiry {
    let weak: Weak<RefCell<Store>> = Rc::downgrade(db);
    let key = key.to_vec();
    let timer = timers().call_at_named(at, "expire key", move || {
        let Some(db) = weak.upgrade() else { return };
        let mut store = db.borrow_mut();
        let due = store
            .entries
            .get(&key)
            .and_then(|entry| entry.expiry.as_ref())
            .is_some_and(|expiry| expiry.at == at);
        if due {
            store.entries.remove(&key);
            store.expired += 1;
        }
    });
    Expiry { at, timer }
}
// ANCHOR_END: schedule
