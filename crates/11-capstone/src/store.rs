//! The key space: values with optional deadlines, and expiry on the loop's timers.
//!
//! The store is `Rc<RefCell<Store>>`. One thread runs every connection's task, so no
//! two of them ever touch it at the same time: a command borrows it, does its work
//! and lets go before the task awaits again. A `Mutex` would guard against a second
//! thread that does not exist. (With several loop threads sharing one key space, it
//! would be needed, and each command would pay for it.)
//!
//! Expiry has two halves, as in Redis:
//!
//! - **Active**: a key given a time to live gets a timer on the loop's heap (stage
//!   5's `call_at`). When it fires, the key is deleted if it still carries that
//!   deadline. Overwriting or deleting the key cancels its timer; the heap drops
//!   cancelled timers lazily, in its sweep.
//! - **Lazy**: a read checks the deadline first. A timer due in this very turn may not
//!   have run yet; the read must still not see the key.
//!
//! Redis itself keeps no timer per key: it checks on access, and a periodic task
//! samples keys with deadlines and deletes those past it.
//!
//! A command looks its key up once. `GET` and `SET`, the commands a server runs most,
//! find the entry with one hash of the key and read the clock only when that entry has
//! a deadline; `SET` writes through the same look-up (the map's `entry`), into the
//! request's own key buffer. The table counts how many keys it hashed
//! ([`Store::key_hashes`]), so a test can hold it to that.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::collections::hash_map::{self, DefaultHasher, RandomState};
use std::hash::BuildHasher;
use std::rc::Rc;
use std::time::Duration;

use oneloop::{TimerHandle, Timers};

use crate::expiry::schedule;

/// The store, shared by every connection on the loop.
pub type Db = Rc<RefCell<Store>>;

/// A key's deadline and the timer that will delete it.
#[derive(Debug)]
pub(crate) struct Expiry {
    pub(crate) at: Duration,
    pub(crate) timer: TimerHandle,
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) value: Vec<u8>,
    pub(crate) expiry: Option<Expiry>,
}

/// The keys and their values.
#[derive(Debug, Default)]
pub struct Store {
    pub(crate) entries: HashMap<Vec<u8>, Entry, KeyHasher>,
    pub(crate) expired: u64,
}

/// The table's hasher: std's SipHash with keys drawn at random, so that a client
/// cannot choose keys that all land in one bucket; and a count of the keys hashed.
#[derive(Debug, Default)]
pub(crate) struct KeyHasher {
    random: RandomState,
    hashed: Cell<u64>,
}

impl BuildHasher for KeyHasher {
    type Hasher = DefaultHasher;

    fn build_hasher(&self) -> DefaultHasher {
        self.hashed.set(self.hashed.get() + 1);
        self.random.build_hasher()
    }
}

/// A key's time to live, as `TTL` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ttl {
    /// No such key (`-2`).
    Missing,
    /// The key has no deadline (`-1`).
    Forever,
    /// The key is deleted in about this long: whole milliseconds, counted as Redis
    /// counts them (the deadline's millisecond less the millisecond now).
    Left(Duration),
}

/// When `SET` may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// Always.
    Always,
    /// `NX`: only if the key does not exist.
    IfMissing,
    /// `XX`: only if it exists.
    IfExists,
}

/// The loop's clock (the store only runs on a loop with timers).
fn now() -> Duration {
    timers().time()
}

pub(crate) fn timers() -> Rc<Timers> {
    Timers::current().expect("the store is used on a loop with a timer driver")
}

/// A new, empty store.
pub fn new_db() -> Db {
    Rc::new(RefCell::new(Store::default()))
}

impl Store {
    /// How many keys are stored (expired ones not yet deleted included).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is stored.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many keys were deleted because their deadline passed.
    pub fn expired(&self) -> u64 {
        self.expired
    }

    /// How many times the table hashed a key so far: once per look-up or insert, and
    /// once per key moved when the table grows.
    pub fn key_hashes(&self) -> u64 {
        self.entries.hasher().hashed.get()
    }
}

/// The time at which `entry` was found past its deadline, or `None` while it is
/// live. Only an entry with a deadline reads the clock.
fn passed(entry: &Entry) -> Option<Duration> {
    let at = entry.expiry.as_ref()?.at;
    let now = now();
    (at <= now).then_some(now)
}

/// Cancels the timer of an entry that leaves the store.
pub(crate) fn cancel(entry: Entry) {
    if let Some(expiry) = entry.expiry {
        expiry.timer.cancel();
    }
}

/// The value of `key`.
pub fn get(db: &Db, key: &[u8]) -> Option<Vec<u8>> {
    read(db, key, |value| value.map(<[u8]>::to_vec))
}

// ANCHOR: read
/// Runs `f` on the value of `key` (`None` when there is none), with one look-up
/// and no copy: `GET` encodes its reply straight from the store. `f` runs while
/// the store is borrowed, so it must not touch the store; encoding bytes is fine.
pub fn read<R>(db: &Db, key: &[u8], f: impl FnOnce(Option<&[u8]>) -> R) -> R {
    let mut store = db.borrow_mut();
    let now = match store.entries.get(key) {
        None => return f(None),
        Some(entry) => match passed(entry) {
            None => return f(Some(&entry.value)),
            Some(now) => now,
        },
    };
    // Past its deadline: `live` deletes it, cancels its timer and counts it.
    let gone = store.live(key, now).is_none();
    debug_assert!(gone, "a key past its deadline is not live");
    drop(store);
    f(None)
}
// ANCHOR_END: read

/// Whether `key` exists.
pub fn exists(db: &Db, key: &[u8]) -> bool {
    let now = now();
    db.borrow_mut().live(key, now).is_some()
}

/// Deletes `key`; returns whether it existed.
pub fn del(db: &Db, key: &[u8]) -> bool {
    let now = now();
    let mut store = db.borrow_mut();
    if store.live(key, now).is_none() {
        return false;
    }
    if let Some(entry) = store.entries.remove(key) {
        cancel(entry);
    }
    true
}

// ANCHOR: set
/// Sets `key` to `value` if `condition` allows, with a time to live if `ttl` is
/// given (any earlier deadline is dropped, as `SET` does). Returns whether it wrote.
///
/// One look-up: the map's `entry` finds the key's slot and writes into it. A key
/// given as a `Vec` (a request's own buffer) is moved in, not copied.
pub fn set(
    db: &Db,
    key: impl Into<Vec<u8>>,
    value: Vec<u8>,
    ttl: Option<Duration>,
    condition: Condition,
) -> bool {
    let mut guard = db.borrow_mut();
    let store = &mut *guard;
    let (wrote, old) = match store.entries.entry(key.into()) {
        hash_map::Entry::Occupied(mut slot) => {
            // An entry past its deadline is gone (lazy expiry): it counts as missing.
            let past = passed(slot.get());
            if past.is_some() {
                store.expired += 1;
            }
            let exists = past.is_none();
            match condition {
                Condition::IfMissing if exists => (false, None),
                Condition::IfExists if !exists => (false, Some(slot.remove())),
                _ => {
                    let expiry = ttl.map(|ttl| {
                        let now = past.unwrap_or_else(now);
                        schedule(db, slot.key(), now + ttl)
                    });
                    (true, Some(slot.insert(Entry { value, expiry })))
                }
            }
        }
        hash_map::Entry::Vacant(slot) => {
            if condition == Condition::IfExists {
                (false, None)
            } else {
                let expiry = ttl.map(|ttl| schedule(db, slot.key(), now() + ttl));
                slot.insert(Entry { value, expiry });
                (true, None)
            }
        }
    };
    // The old entry's timer is cancelled with the store released.
    drop(guard);
    if let Some(old) = old {
        cancel(old);
    }
    wrote
}

// ANCHOR_END: set

/// Gives `key` a time to live of `ttl` (a zero one deletes it at once, as Redis
/// does). Returns whether the key existed.
pub fn expire(db: &Db, key: &[u8], ttl: Duration) -> bool {
    let now = now();
    if ttl.is_zero() {
        return del(db, key);
    }
    let expiry = {
        let mut store = db.borrow_mut();
        if store.live(key, now).is_none() {
            return false;
        }
        Some(schedule(db, key, now + ttl))
    };
    let mut store = db.borrow_mut();
    let entry = store.entries.get_mut(key).expect("checked live just above");
    let old = std::mem::replace(&mut entry.expiry, expiry);
    drop(store);
    if let Some(old) = old {
        old.timer.cancel();
    }
    true
}

/// The time to live of `key`, in whole milliseconds: the deadline's millisecond less
/// the millisecond now, as Redis counts it.
pub fn ttl(db: &Db, key: &[u8]) -> Ttl {
    let now = now();
    match db.borrow_mut().live(key, now) {
        None => Ttl::Missing,
        Some(Entry { expiry: None, .. }) => Ttl::Forever,
        Some(Entry {
            expiry: Some(expiry),
            ..
        }) => Ttl::Left(whole_ms_between(now, expiry.at)),
    }
}

/// The time from `now` to `at` as Redis counts it: the difference of the two times in
/// whole milliseconds. Redis keeps a deadline as a time in milliseconds and reads the
/// time in milliseconds too, so a key given 100 ms has 100 left for the rest of the
/// millisecond it was set in, and a new deadline is later than the old one only from
/// the next millisecond on (`EXPIRE ... GT`).
fn whole_ms_between(now: Duration, at: Duration) -> Duration {
    Duration::from_millis((at.as_millis() - now.as_millis()) as u64)
}

/// Adds `delta` to the integer stored at `key` (a missing key counts as 0); the
/// key's deadline, if any, is kept, as Redis keeps it.
///
/// A key that exists is looked up once and its digits rewritten in place.
pub fn incr_by(db: &Db, key: &[u8], delta: i64) -> Result<i64, &'static str> {
    let mut store = db.borrow_mut();
    let past = match store.entries.get_mut(key) {
        Some(entry) => match passed(entry) {
            None => {
                let next = add(integer_value(&entry.value)?, delta)?;
                write_integer(&mut entry.value, next);
                return Ok(next);
            }
            Some(now) => Some(now),
        },
        None => None,
    };
    if let Some(now) = past {
        // Past its deadline: `live` deletes it and counts it; it counts as missing.
        let gone = store.live(key, now).is_none();
        debug_assert!(gone, "a key past its deadline is not live");
    }
    let next = add(0, delta)?;
    let mut value = Vec::new();
    write_integer(&mut value, next);
    store.entries.insert(
        key.to_vec(),
        Entry {
            value,
            expiry: None,
        },
    );
    Ok(next)
}

/// The integer a value holds, as `INCR` reads it.
/// Redis's strict reading: digits with an optional `-`; no `+`, space or leading zero.
fn integer_value(value: &[u8]) -> Result<i64, &'static str> {
    crate::limits::decimal(value).ok_or("ERR value is not an integer or out of range")
}

fn add(current: i64, delta: i64) -> Result<i64, &'static str> {
    current
        .checked_add(delta)
        .ok_or("ERR increment or decrement would overflow")
}

/// Replaces `value` with the digits of `n`, in the room it already has.
fn write_integer(value: &mut Vec<u8>, n: i64) {
    use std::io::Write;
    value.clear();
    write!(value, "{n}").expect("writing to a Vec cannot fail");
}
