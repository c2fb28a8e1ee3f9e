//! A waker that counts its clones, built on a hand-written `RawWakerVTable`.
//!
//! [`CountingWaker`](crate::CountingWaker) is built on std's `Wake`, where a clone is an
//! `Arc` clone that nothing can observe: storing a fresh clone and dropping the old one
//! leaves every count the same. A test of "keep the stored waker while `will_wake`
//! says it is the same" has to see the clones, and only a vtable of our own can count
//! them. That needs `unsafe`; the test kit allows it in this module and in the counting
//! allocator, nowhere else.
//!
//! # The ownership rule
//!
//! The data pointer of every waker made here came from `Arc::into_raw` on an
//! `Arc<Counts>`, and each live `Waker` owns exactly one strong reference of it: `clone`
//! adds one, `wake` and `drop` give theirs back, `wake_by_ref` leaves the count alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, RawWaker, RawWakerVTable, Waker};

/// Counts wakes and clones of its wakers, and how many are alive.
///
/// Every waker it makes shares one data pointer and one vtable, so `will_wake` is true
/// between any two of them, as between clones of one task's waker.
#[derive(Debug, Default)]
pub struct CloneCountingWaker {
    inner: Arc<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    wakes: AtomicUsize,
    clones: AtomicUsize,
}

impl CloneCountingWaker {
    /// A fresh counter: no wakes, no clones.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new [`Waker`] that counts into this counter (not counted as a clone).
    pub fn waker(&self) -> Waker {
        let data = Arc::into_raw(Arc::clone(&self.inner)).cast::<()>();
        // SAFETY: `data` comes from `Arc::into_raw::<Counts>` and owns the one reference
        // taken just above, which is what every function of `VTABLE` expects. `Counts`
        // is only atomics, so the waker may be sent and shared across threads.
        unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
    }

    /// Runs `f` with a [`Context`] whose waker counts into this counter.
    pub fn with_context<R>(&self, f: impl FnOnce(&mut Context<'_>) -> R) -> R {
        let waker = self.waker();
        let mut cx = Context::from_waker(&waker);
        f(&mut cx)
    }

    /// How many times a waker of this counter was woken (by value or by reference).
    pub fn wakes(&self) -> usize {
        self.inner.wakes.load(Ordering::SeqCst)
    }

    /// How many times a waker of this counter was cloned.
    pub fn clones(&self) -> usize {
        self.inner.clones.load(Ordering::SeqCst)
    }

    /// How many [`Waker`]s of this counter are alive right now.
    pub fn live_wakers(&self) -> usize {
        // Every live waker holds one strong reference; this handle holds the other one.
        Arc::strong_count(&self.inner) - 1
    }
}

/// In a `static`, so that every waker points at the same table and `will_wake` holds.
static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// # Safety
///
/// `data` must come from a live waker of this vtable.
unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned owns a reference, so the `Arc<Counts>` is alive;
    // the new waker gets a reference of its own.
    unsafe { Arc::increment_strong_count(data.cast::<Counts>()) };
    // SAFETY: the `Arc` is alive (see above), so `data` points at its `Counts`.
    let counts = unsafe { &*data.cast::<Counts>() };
    counts.clones.fetch_add(1, Ordering::SeqCst);
    RawWaker::new(data, &VTABLE)
}

/// # Safety
///
/// `data` must come from a live waker of this vtable, which this call consumes.
unsafe fn wake(data: *const ()) {
    // SAFETY: the consumed waker's reference is ours; `from_raw` takes it over and
    // releases it when `counts` is dropped at the end of this function.
    let counts = unsafe { Arc::from_raw(data.cast::<Counts>()) };
    counts.wakes.fetch_add(1, Ordering::SeqCst);
}

/// # Safety
///
/// `data` must come from a live waker of this vtable.
unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the borrowed waker keeps the `Arc` alive for the whole call.
    let counts = unsafe { &*data.cast::<Counts>() };
    counts.wakes.fetch_add(1, Ordering::SeqCst);
}

/// # Safety
///
/// `data` must come from a live waker of this vtable, which is being dropped.
unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the dropped waker's reference is given back exactly once.
    unsafe { Arc::decrement_strong_count(data.cast::<Counts>()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_clones_wakes_and_live_wakers() {
        let counter = CloneCountingWaker::new();
        let a = counter.waker();
        let b = a.clone();
        assert_eq!(counter.clones(), 1);
        assert_eq!(counter.live_wakers(), 2);
        assert!(a.will_wake(&b) && a.will_wake(&counter.waker()));
        b.wake_by_ref();
        b.wake();
        assert_eq!(counter.wakes(), 2);
        assert_eq!(counter.live_wakers(), 1);
        drop(a);
        assert_eq!(counter.live_wakers(), 0);
        assert_eq!(counter.clones(), 1);
    }
}
