//! Timers: `setTimeout`, `setInterval`, `clearTimeout`.
//!
//! Node keeps its JavaScript timers in lists, one per duration: every 10 ms timer sits
//! in the 10 ms list, in the order it was set, so each list is ordered by deadline too.
//! A priority queue orders the lists by their `expiry` (the earliest deadline in the
//! list), ties broken by the list's `id`, a number the list takes when it is made and
//! again each time its expiry moves. libuv gets a single timer, for the earliest expiry.
//! oneloop keeps the same structure, so it runs due timers in Node's order also when a
//! late loop finds deadlines of several lists passed at once: Node runs one list to its
//! end, every overdue timer of that duration, before the next list.

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
    /// Its duration: which list it is in.
    ms: u64,
    /// When it was set (or re-armed): it is due at `start + ms`.
    start: u64,
    /// Its place in its list.
    seq: u64,
    /// Whether it keeps the loop alive (Node's `ref()` and `unref()`).
    refed: bool,
    callback: Option<TimerCallback>,
}

/// The timers of one duration, in the order they were set.
struct List {
    /// When the list is due: its first timer's deadline, or a little later after
    /// that timer was cleared (Node moves it only when the list is found early).
    expiry: u64,
    /// The tie-break between lists of the same expiry: renewed whenever the expiry moves.
    id: u64,
    timers: BTreeMap<u64, TimerId>,
}

// ANCHOR: timers
/// The loop's timers: one list per duration, the lists ordered by `(expiry, id)`.
#[derive(Default)]
pub(crate) struct Timers {
    lists: HashMap<u64, List>,
    queue: BTreeMap<(u64, u64), u64>,
    entries: HashMap<TimerId, Entry>,
    /// How many entries keep the loop alive (Node's `refCount`).
    refed: usize,
    next_seq: u64,
    next_list_id: u64,
}
// ANCHOR_END: timers

impl fmt::Debug for Timers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timers")
            .field("armed", &self.entries.len())
            .field("refed", &self.refed)
            .field("lists", &self.lists.len())
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
        let id = TimerId(self.next_seq);
        self.next_seq += 1;
        self.refed += 1;
        self.arm(id, clamp_delay(delay), now, callback, true);
        id
    }

    /// Node's `insert`: append the timer to its duration's list, making the list (due
    /// at this timer's deadline) if there is none.
    fn arm(&mut self, id: TimerId, ms: u64, start: u64, callback: TimerCallback, refed: bool) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let list = self.lists.entry(ms).or_insert_with(|| {
            let list_id = self.next_list_id;
            self.next_list_id += 1;
            self.queue.insert((start + ms, list_id), ms);
            List {
                expiry: start + ms,
                id: list_id,
                timers: BTreeMap::new(),
            }
        });
        list.timers.insert(seq, id);
        self.entries.insert(
            id,
            Entry {
                ms,
                start,
                seq,
                refed,
                callback: Some(callback),
            },
        );
    }

    /// Disarms `id`. Returns the callback, for the caller to drop once no borrow is
    /// held (dropping it may run arbitrary code). A list left empty goes, as in Node.
    pub(crate) fn remove(&mut self, id: TimerId) -> Option<TimerCallback> {
        let entry = self.entries.remove(&id)?;
        if entry.refed {
            self.refed -= 1;
        }
        if let Some(list) = self.lists.get_mut(&entry.ms) {
            list.timers.remove(&entry.seq);
            if list.timers.is_empty() {
                self.queue.remove(&(list.expiry, list.id));
                self.lists.remove(&entry.ms);
            }
        }
        entry.callback
    }

    /// The earliest expiry of a list, if any timer is armed: what Node gives libuv.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.queue.keys().next().map(|&(expiry, _)| expiry)
    }

    /// How many armed timers keep the loop alive: the unref'd ones do not.
    pub(crate) fn refed(&self) -> usize {
        self.refed
    }

    /// Sets whether `id` keeps the loop alive. Does nothing to a timer not armed.
    pub(crate) fn set_refed(&mut self, id: TimerId, refed: bool) {
        if let Some(entry) = self.entries.get_mut(&id)
            && entry.refed != refed
        {
            entry.refed = refed;
            if refed {
                self.refed += 1;
            } else {
                self.refed -= 1;
            }
        }
    }

    /// Moves `id` to the end of its list, due a whole duration after `now`. Does
    /// nothing to a timer not armed, nor to an interval while its callback runs (it is
    /// re-armed after it, from the time read before it, as Node's re-arm then wins).
    pub(crate) fn refresh(&mut self, id: TimerId, now: u64) {
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        if entry.callback.is_none() {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let old = std::mem::replace(&mut entry.seq, seq);
        entry.start = now;
        // The list keeps its expiry: the phase moves it when it finds the list early.
        if let Some(list) = self.lists.get_mut(&entry.ms) {
            list.timers.remove(&old);
            list.timers.insert(seq, id);
        }
    }

    /// Whether `id` is armed and keeps the loop alive.
    pub(crate) fn is_refed(&self, id: TimerId) -> bool {
        self.entries.get(&id).is_some_and(|entry| entry.refed)
    }

    /// Takes the next timer due at `now`, in Node's order: the first list in the queue,
    /// if its expiry has come, and from it the first timer, if its own deadline has
    /// come. A list whose first timer is not due yet is found early: its expiry moves
    /// to that timer's deadline (at least `now + 1`), with a new id, and the next list
    /// is tried. A one-shot timer is removed; an interval stays in `entries` without
    /// its callback until [`rearm`](Self::rearm) puts it back.
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<(TimerId, TimerCallback)> {
        loop {
            let (&(expiry, list_id), &ms) = self.queue.iter().next()?;
            if expiry > now {
                return None;
            }
            let list = self.lists.get_mut(&ms)?;
            let Some((&seq, &id)) = list.timers.iter().next() else {
                // Its last timer ran and nothing joined it since: the list goes.
                self.queue.remove(&(expiry, list_id));
                self.lists.remove(&ms);
                continue;
            };
            let start = self.entries.get(&id)?.start;
            if now < start + ms {
                self.queue.remove(&(expiry, list_id));
                list.expiry = (start + ms).max(now + 1);
                list.id = self.next_list_id;
                self.next_list_id += 1;
                self.queue.insert((list.expiry, list.id), ms);
                continue;
            }
            // The list stays, even empty, while its timer runs: a timer of the same
            // duration set by the callback joins it, as in Node.
            list.timers.remove(&seq);
            let entry = self.entries.get_mut(&id)?;
            let callback = entry.callback.take()?;
            if matches!(callback, TimerCallback::Once(_))
                && let Some(ran) = self.entries.remove(&id)
                && ran.refed
            {
                self.refed -= 1;
            }
            return Some((id, callback));
        }
    }

    /// Puts an interval back, due `every` ms after `now`, at the end of its list, unless
    /// it was cleared while its callback ran (then the callback is handed back to be
    /// dropped).
    pub(crate) fn rearm(
        &mut self,
        id: TimerId,
        now: u64,
        callback: TimerCallback,
    ) -> Option<TimerCallback> {
        let Some(refed) = self.entries.get(&id).map(|entry| entry.refed) else {
            return Some(callback);
        };
        let every = match &callback {
            TimerCallback::Repeat { every, .. } => *every,
            TimerCallback::Once(_) => return Some(callback),
        };
        self.arm(id, every, now, callback, refed);
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

/// Node's `timeout.unref()`: the timer no longer keeps the loop alive. It still runs
/// when due, if something else keeps the loop going until then.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn unref_timer(id: TimerId) {
    current("unref_timer")
        .timers
        .borrow_mut()
        .set_refed(id, false);
}

/// Node's `timeout.ref()`: undoes [`unref_timer`].
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn ref_timer(id: TimerId) {
    current("ref_timer").timers.borrow_mut().set_refed(id, true);
}

/// Node's `timeout.hasRef()`: whether the timer keeps the loop alive. A timer that
/// ran or was cleared keeps nothing alive, and this says `false`; Node's `Timeout`
/// object keeps its flag, and its `hasRef()` stays `true` unless it was unref'd.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn timer_has_ref(id: TimerId) -> bool {
    current("timer_has_ref").timers.borrow().is_refed(id)
}

/// Node's `timeout.refresh()`: re-arms the timer from now, with its own duration, at
/// the end of its duration's list, as if it had just been set. It keeps its id and
/// whether it was unref'd.
///
/// A timer that ran, or was cleared, is not re-armed. (Node keeps a `setTimeout`
/// timer's callback after it ran, and `refresh()` runs it once more; here the callback
/// is an `FnOnce`, gone once it ran.)
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn refresh_timer(id: TimerId) {
    let inner = current("refresh_timer");
    inner.update_time();
    let now = inner.now.get();
    inner.timers.borrow_mut().refresh(id, now);
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
