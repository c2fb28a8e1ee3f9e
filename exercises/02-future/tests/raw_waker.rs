//! Exercise 3: a waker from a hand-written `RawWakerVTable` (chapter 2.4).
//!
//! The closure's `Arc` is shared between the test and the wakers, so its strong count
//! tells exactly how many wakers hold it: one reference too many is a leak, one too few
//! a use-after-free waiting to happen.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Context;
use std::thread;

use crate::common::yield_times;
use ex02_future::waker_fn;
use oneloop_testkit::{DropFlag, watchdog_default};

/// A closure that counts its calls, and the counter it counts into.
fn counting_closure() -> (Arc<impl Fn() + Send + Sync + 'static>, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    let wake = Arc::new(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    (wake, hits)
}

#[test]
fn ex3_a_waker_holds_one_reference() {
    watchdog_default(|| {
        let (wake, hits) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        assert_eq!(Arc::strong_count(&wake), 2, "ours and the waker's");
        drop(waker);
        assert_eq!(
            Arc::strong_count(&wake),
            1,
            "dropping the waker releases its reference"
        );
        assert_eq!(hits.load(Ordering::SeqCst), 0, "dropping is not waking");
    });
}

#[test]
fn ex3_clones_add_references_and_drops_release_them() {
    watchdog_default(|| {
        let (wake, _hits) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        let clones: Vec<_> = (0..5).map(|_| waker.clone()).collect();
        if Arc::strong_count(&wake) != 7 {
            // A clone that took no reference of its own: dropping these wakers would
            // free the closure more than once and abort the whole test binary. Leak
            // them, so that the failure is the assertion below.
            std::mem::forget(clones);
            std::mem::forget(waker);
            panic!(
                "five clones of one waker must add five references: the count is {}, not 7",
                Arc::strong_count(&wake)
            );
        }
        assert_eq!(Arc::strong_count(&wake), 7);
        drop(clones);
        assert_eq!(Arc::strong_count(&wake), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&wake), 1);
    });
}

#[test]
fn ex3_wake_by_value_consumes_one_reference() {
    watchdog_default(|| {
        let (wake, hits) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        let clone = waker.clone();
        assert_eq!(Arc::strong_count(&wake), 3);
        clone.wake();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        assert_eq!(
            Arc::strong_count(&wake),
            2,
            "wake consumed the clone's reference"
        );
        waker.wake();
        assert_eq!(hits.load(Ordering::SeqCst), 2);
        assert_eq!(Arc::strong_count(&wake), 1);
    });
}

#[test]
fn ex3_wake_by_ref_leaves_the_count_alone() {
    watchdog_default(|| {
        let (wake, hits) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        for _ in 0..3 {
            waker.wake_by_ref();
        }
        assert_eq!(hits.load(Ordering::SeqCst), 3);
        assert_eq!(Arc::strong_count(&wake), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&wake), 1);
    });
}

#[test]
fn ex3_clones_will_wake_each_other() {
    watchdog_default(|| {
        let (wake, _) = counting_closure();
        let (other, _) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        assert!(waker.will_wake(&waker.clone()), "a clone is the same waker");
        assert!(
            !waker.will_wake(&waker_fn(other)),
            "another closure is another waker"
        );
        drop(waker);
        assert_eq!(Arc::strong_count(&wake), 1);
    });
}

#[test]
fn ex3_the_closure_is_freed_exactly_once() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let guard = flag.guard();
        let waker = waker_fn(Arc::new(move || {
            let _keep = &guard;
        }));
        let a = waker.clone();
        let b = waker.clone();
        a.wake();
        b.wake_by_ref();
        drop(b);
        assert!(!flag.dropped(), "a waker is still alive");
        drop(waker);
        assert_eq!(
            flag.drops(),
            1,
            "the closure is dropped once, with the last waker"
        );
    });
}

#[test]
fn ex3_a_hand_made_waker_crosses_threads() {
    watchdog_default(|| {
        let (wake, hits) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let waker = waker.clone();
                thread::spawn(move || waker.wake())
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        assert_eq!(hits.load(Ordering::SeqCst), 4);
        assert_eq!(Arc::strong_count(&wake), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&wake), 1);
    });
}

#[test]
fn ex3_a_hand_made_waker_drives_a_future() {
    watchdog_default(|| {
        let (wake, hits) = counting_closure();
        let waker = waker_fn(Arc::clone(&wake));
        let mut cx = Context::from_waker(&waker);
        let mut fut = pin!(yield_times(2));
        let mut polls = 1;
        while fut.as_mut().poll(&mut cx).is_pending() {
            polls += 1;
        }
        assert_eq!((polls, hits.load(Ordering::SeqCst)), (3, 2));
        drop(waker);
        assert_eq!(Arc::strong_count(&wake), 1);
    });
}
