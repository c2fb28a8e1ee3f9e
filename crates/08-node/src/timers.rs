//! Timers: `setTimeout`, `setInterval`, `clearTimeout`.
//!
//! Node keeps its JavaScript timers in lists, one per duration, ordered by expiry, and
//! gives libuv a single timer for the earliest. oneloop keeps one ordered map keyed by
//! `(deadline, sequence)`: the earliest deadline first, and timers with the same
//! deadline in the order they were set. The two agree whenever the timers that are due
//! together share a deadline (always so on the virtual clock); when a late loop finds
//! several deadlines passed at once, Node runs each duration's list to its end before
//! the next list, and oneloop runs strictly by deadline.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::inner::current;

/// Which timer: what `set_timeout` and `set_interval` return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(u64);

/// What a timer runs.
pub(crate) enum TimerCallback {
    /// `setTimeout`: once.
    Once(Box<dyn FnOnce()>),
    /// `setInterval`: again every `every` milliseconds until cleared.
    Repeat {
        every: u64,
        callback: Box<dyn FnMut()>,
    },
}

/// One armed timer. `callback` is `None` while an interval's callback runs.
struct Entry {
    key: (u64, u64),
    callback: Option<TimerCallback>,
}

// ANCHOR: timers
/// The loop's timers: deadlines in order, and the entries by id.
#[derive(Default)]
pub(crate) struct Timers {
    order: BTreeMap<(u64, u64), TimerId>,
    entries: HashMap<TimerId, Entry>,
    next_seq: u64,
}
// ANCHOR_END: timers

impl fmt::Debug for Timers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timers")
            .field("armed", &self.entries.len())
            .field("next_deadline", &self.next_deadline())
            .finish()
    }
}

/// Node's `TIMEOUT_MAX`: the longest delay a timer takes, 2^31 - 1 ms (about 24.8 days).
const TIMEOUT_MAX: u64 = (1 << 31) - 1;

/// A delay as Node reads it: below 1 ms (0 included) it becomes 1 ms, and so does one
/// above 2^31 - 1 ms, which Node also reports with a `TimeoutOverflowWarning`. A delay
/// of `u64::MAX` is therefore due in 1 ms, not never.
pub fn clamp_delay(ms: u64) -> u64 {
    if (1..=TIMEOUT_MAX).contains(&ms) {
        ms
    } else {
        1
    }
}

impl Timers {
    /// Arms a timer due `delay` ms after `now`.
    pub(crate) fn insert(&mut self, now: u64, delay: u64, callback: TimerCallback) -> TimerId {
        let seq = self.next_seq;
        self.next_seq += 1;
        let id = TimerId(seq);
        self.arm(id, now + clamp_delay(delay), callback);
        id
    }

    fn arm(&mut self, id: TimerId, deadline: u64, callback: TimerCallback) {
        // A re-armed interval takes a new sequence number: it goes behind the timers
        // already set for the same deadline, as in Node's per-duration list.
        let key = (deadline, self.next_seq);
        self.next_seq += 1;
        self.order.insert(key, id);
        self.entries.insert(
            id,
            Entry {
                key,
                callback: Some(callback),
            },
        );
    }

    /// Disarms `id`. Returns the callback, for the caller to drop once no borrow is
    /// held (dropping it may run arbitrary code).
    pub(crate) fn remove(&mut self, id: TimerId) -> Option<TimerCallback> {
        let entry = self.entries.remove(&id)?;
        self.order.remove(&entry.key);
        entry.callback
    }

    /// The earliest deadline, if any timer is armed.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.order.keys().next().map(|&(deadline, _)| deadline)
    }

    /// How many timers are armed (each keeps the loop alive).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Takes the earliest timer due at `now` out of the order. A one-shot timer is
    /// removed; an interval stays in `entries` without its callback until
    /// [`rearm`](Self::rearm) puts it back.
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<(TimerId, TimerCallback)> {
        let (&key, &id) = self.order.iter().next()?;
        if key.0 > now {
            return None;
        }
        self.order.remove(&key);
        let entry = self.entries.get_mut(&id)?;
        let callback = entry.callback.take()?;
        if matches!(callback, TimerCallback::Once(_)) {
            self.entries.remove(&id);
        }
        Some((id, callback))
    }

    /// Puts an interval back, due `every` ms after `now`, unless it was cleared while
    /// its callback ran (then the callback is handed back to be dropped).
    pub(crate) fn rearm(
        &mut self,
        id: TimerId,
        now: u64,
        callback: TimerCallback,
    ) -> Option<TimerCallback> {
        if !self.entries.contains_key(&id) {
            return Some(callback);
        }
        let every = match &callback {
            TimerCallback::Repeat { every, .. } => *every,
            TimerCallback::Once(_) => return Some(callback),
        };
        self.arm(id, now + every, callback);
        None
    }
}

/// Node's `setTimeout(callback, ms)`: run `callback` once, in the first timers phase
/// that starts `ms` or more milliseconds from now. `ms` below 1 becomes 1.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn set_timeout(callback: impl FnOnce() + 'static, ms: u64) -> TimerId {
    let inner = current("set_timeout");
    // Node reads the clock afresh here (its `getLibuvNow` updates libuv's cached time).
    inner.update_time();
    let now = inner.now.get();
    inner
        .timers
        .borrow_mut()
        .insert(now, ms, TimerCallback::Once(Box::new(callback)))
}

/// Node's `setInterval(callback, ms)`: like [`set_timeout`], then again `ms` after each
/// run, until [`clear_timeout`] (or [`clear_interval`]). Each run is counted from the
/// time read just before the previous one began, as in Node, so a slow callback does
/// not push the later runs back.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn set_interval(callback: impl FnMut() + 'static, ms: u64) -> TimerId {
    let inner = current("set_interval");
    inner.update_time();
    let now = inner.now.get();
    let every = clamp_delay(ms);
    inner.timers.borrow_mut().insert(
        now,
        every,
        TimerCallback::Repeat {
            every,
            callback: Box::new(callback),
        },
    )
}

/// Node's `clearTimeout(id)`: the timer will not run (again). Clearing a timer that
/// already ran, or was cleared, does nothing.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn clear_timeout(id: TimerId) {
    let inner = current("clear_timeout");
    let removed = inner.timers.borrow_mut().remove(id);
    // Dropped here, with the borrow released: a captured value's drop may call back in.
    drop(removed);
}

/// Node's `clearInterval(id)`: the same as [`clear_timeout`], as in Node.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn clear_interval(id: TimerId) {
    clear_timeout(id);
}

#[cfg(test)]
mod tests {
    use super::clamp_delay;

    #[test]
    fn delays_outside_one_ms_to_timeout_max_become_one_ms() {
        assert_eq!(clamp_delay(0), 1);
        assert_eq!(clamp_delay(1), 1);
        assert_eq!(clamp_delay(100), 100);
        assert_eq!(clamp_delay(2_147_483_647), 2_147_483_647);
        assert_eq!(clamp_delay(2_147_483_648), 1);
        assert_eq!(clamp_delay(u64::MAX), 1);
    }
}
