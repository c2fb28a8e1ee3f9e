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

// Exercise 3: write `waker_fn`, `clone_waker`, `wake` and `wake_by_ref`.
//
// `drop_waker` and the vtable are given, on purpose. `Waker`'s own `Drop` calls the
// vtable's `drop`, and tests drop wakers while they unwind from a failed assertion or
// from one of the holes below. A `todo!` reached from there would be a panic during a
// panic, which aborts the whole test binary instead of failing one test. Given `drop`,
// every hole panics with a waker that can still be dropped cleanly.
#![allow(unused_variables, dead_code, clippy::extra_unused_type_parameters)]

use std::marker::PhantomData;
use std::sync::Arc;
use std::task::{RawWaker, RawWakerVTable, Waker};

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
    todo!(
        "stage 2, exercise 3: hand the Arc over as a data pointer and build the Waker from a RawWaker with this vtable — see chapter 2.4"
    )
}

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

/// The vtable's `clone`: a new waker, so one more reference.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`.
unsafe fn clone_waker<F: Fn() + Send + Sync + 'static>(data: *const ()) -> RawWaker {
    todo!("stage 2, exercise 3: a new waker needs one more reference — see chapter 2.4")
}

/// The vtable's `wake`: call the closure, then give back the consumed waker's reference.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`, and that
/// waker is consumed: its reference is ours to release.
unsafe fn wake<F: Fn() + Send + Sync + 'static>(data: *const ()) {
    todo!(
        "stage 2, exercise 3: call the closure and release the consumed waker's reference — see chapter 2.4"
    )
}

/// The vtable's `wake_by_ref`: call the closure; the waker keeps its reference.
///
/// # Safety
///
/// `data` must come from a live waker made by [`waker_fn`] with this same `F`.
unsafe fn wake_by_ref<F: Fn() + Send + Sync + 'static>(data: *const ()) {
    todo!("stage 2, exercise 3: call the closure without touching the count — see chapter 2.4")
}

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
