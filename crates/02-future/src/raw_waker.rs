//! A waker built by hand from a `RawWakerVTable`: the first unsafe lesson of oneloop
//! (the second is pinning by hand, in `pinning.rs`).
//!
//! Everywhere else oneloop makes wakers from `std::task::Wake`, which writes this file
//! for you. Here we write it ourselves, to see what a [`Waker`] is: a data pointer and a
//! table of four functions, with no type to tell the compiler who owns what.
//!
//! # The ownership rule every function below relies on
//!
//! The data pointer of every `RawWaker` made here came from `Arc::into_raw` on an
//! `Arc<F>`, and each live `Waker` owns exactly one strong reference of that `Arc`.
//! So:
//!
//! - `clone` makes a new `Waker`: it must add one reference;
//! - `wake` consumes its `Waker`: it must give that waker's reference back (drop it);
//! - `wake_by_ref` only borrows: the count must not change;
//! - `drop` ends a `Waker`: it gives its reference back.
//!
//! One reference too many is a leak (the closure is never freed); one too few is a
//! use-after-free. Neither is caught by the compiler, which is why the tests count.

use std::marker::PhantomData;
use std::sync::Arc;
use std::task::{RawWaker, RawWakerVTable, Waker};

// ANCHOR: waker_fn
/// A waker that calls `wake` each time it is woken, by value or by reference.
///
/// The waker and all its clones share the one `Arc`: the closure is freed when the last
/// of them, and the caller's own `Arc`s, are gone.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let hits = Arc::new(AtomicUsize::new(0));
/// let counter = Arc::clone(&hits);
/// let waker = oneloop_future::waker_fn(Arc::new(move || {
///     counter.fetch_add(1, Ordering::SeqCst);
/// }));
/// waker.wake_by_ref();
/// waker.clone().wake();
/// assert_eq!(hits.load(Ordering::SeqCst), 2);
/// ```
pub fn waker_fn<F: Fn() + Send + Sync + 'static>(wake: Arc<F>) -> Waker {
    // The new waker owns the reference we hand over here; `drop_waker` gives it back.
    let data = Arc::into_raw(wake).cast::<()>();
    // SAFETY: `data` is a pointer from `Arc::into_raw::<F>` that owns one reference,
    // which is the rule every function of `vtable::<F>()` relies on. `F: Send + Sync +
    // 'static`, so the waker may be sent, shared and kept for as long as anyone likes.
    unsafe { Waker::from_raw(RawWaker::new(data, vtable::<F>())) }
}
// ANCHOR_END: waker_fn

// ANCHOR: vtable
/// One vtable per closure type `F`, in static memory as `RawWaker` requires.
struct VTableFor<F>(PhantomData<F>);

impl<F: Fn() + Send + Sync + 'static> VTableFor<F> {
    const VTABLE: RawWakerVTable = RawWakerVTable::new(
        clone_waker::<F>,
        wake::<F>,
        wake_by_ref::<F>,
        drop_waker::<F>,
    );
}

/// The vtable for wakers around an `Arc<F>`. The constant's address is promoted to
/// `'static`. `Waker::will_wake` compares vtable addresses too; should the compiler
/// duplicate the constant (it may, across codegen units), it only answers `false`.
fn vtable<F: Fn() + Send + Sync + 'static>() -> &'static RawWakerVTable {
    &VTableFor::<F>::VTABLE
}
// ANCHOR_END: vtable

// ANCHOR: clone
/// The vtable's `clone`: a new waker, so one more reference.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`.
unsafe fn clone_waker<F: Fn() + Send + Sync + 'static>(data: *const ()) -> RawWaker {
    // SAFETY: by the caller's contract, `data` came from `Arc::into_raw::<F>` and the
    // waker being cloned still owns a reference, so the `Arc` is alive (count >= 1).
    unsafe { Arc::increment_strong_count(data.cast::<F>()) };
    RawWaker::new(data, vtable::<F>())
}
// ANCHOR_END: clone

// ANCHOR: wake
/// The vtable's `wake`: call the closure, then give back the consumed waker's reference.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`, and that
/// waker is consumed: its reference is ours to release.
unsafe fn wake<F: Fn() + Send + Sync + 'static>(data: *const ()) {
    // SAFETY: by the caller's contract `data` came from `Arc::into_raw::<F>` and its
    // reference now belongs to us; `from_raw` takes it over, and dropping `wake` at the
    // end of this function (or while unwinding, if the closure panics) releases it once.
    let wake = unsafe { Arc::from_raw(data.cast::<F>()) };
    wake();
}
// ANCHOR_END: wake

// ANCHOR: wake_by_ref
/// The vtable's `wake_by_ref`: call the closure; the waker keeps its reference.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`.
unsafe fn wake_by_ref<F: Fn() + Send + Sync + 'static>(data: *const ()) {
    // SAFETY: `data` points at the `F` inside an `Arc` that the borrowed waker keeps
    // alive for the whole call; we only borrow it and never touch the count.
    let wake = unsafe { &*data.cast::<F>() };
    wake();
}
// ANCHOR_END: wake_by_ref

// ANCHOR: drop
/// The vtable's `drop`: a waker ends, so its reference is released.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`, which is
/// being dropped and is never used again.
unsafe fn drop_waker<F: Fn() + Send + Sync + 'static>(data: *const ()) {
    // SAFETY: by the caller's contract `data` came from `Arc::into_raw::<F>` and the
    // waker's reference is being given up; releasing it exactly once balances the
    // reference taken in `waker_fn` or `clone_waker`.
    unsafe { Arc::decrement_strong_count(data.cast::<F>()) };
}
// ANCHOR_END: drop
