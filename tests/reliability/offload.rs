//! The offload layer: a job's panic payload that panics again when it is dropped.
//!
//! A panic payload is a value of the panicking code's choosing, and its `Drop` is user
//! code. A `to_thread` job whose function panicked with such a payload used to drop it
//! right after the catch: the second panic unwound the job outside any catch, its
//! `Deliver` was dropped while unwinding (when it must not answer), and the future
//! waited for ever. On the default pool, the same drop inside the worker loop marked
//! the pool broken for every later call. Now the job takes the message and drops the
//! payload under a catch of its own: the future resolves to `Panicked`, and the pool
//! takes the next job.

use std::panic;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use oneloop_core::hooks::PANIC_WITHOUT_MESSAGE;
use oneloop_offload::{
    DEFAULT_KEEP_ALIVE, Offload, OffloadError, ThreadPool, run, run_in_executor, to_thread,
};
use oneloop_testkit::watchdog_default;

/// A panic payload whose drop panics (with a plain message).
struct PanicsWhenDropped;

impl Drop for PanicsWhenDropped {
    fn drop(&mut self) {
        panic!("the payload's drop panicked");
    }
}

/// A panic payload whose drop panics with another payload like itself, without end.
/// Counts its drops, so the test can see the chain was cut.
struct PanicsAgainForEver(Arc<AtomicUsize>);

impl Drop for PanicsAgainForEver {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
        panic::panic_any(PanicsAgainForEver(Arc::clone(&self.0)));
    }
}

#[test]
fn a_to_thread_job_whose_panic_payload_panics_when_dropped_resolves_and_the_pool_stays_open() {
    // Before the fix this hung: the first await never resolved (the watchdog fails it).
    let (first, second, open) = watchdog_default(|| {
        run(async {
            let first = to_thread(|| -> u32 { panic::panic_any(PanicsWhenDropped) }).await;
            let second = to_thread(|| 7_u32).await;
            let open = Offload::current()
                .expect("the offload layer")
                .default_pool()
                .expect("the loop is open")
                .is_open();
            (first, second, open)
        })
        .expect("main finishes")
    });
    assert_eq!(
        first,
        Err(OffloadError::Panicked(PANIC_WITHOUT_MESSAGE.to_owned()))
    );
    assert_eq!(second, Ok(7), "the default pool took the next job");
    assert!(open, "the default pool stays open");
}

#[test]
fn a_job_on_a_one_thread_pool_whose_payload_panics_when_dropped_leaves_the_pool_usable() {
    // One thread: had the payload's drop killed the worker outside any job, the pool
    // would be broken and the next job refused.
    let (first, second, pool) = watchdog_default(|| {
        let pool = ThreadPool::with_limits(1, DEFAULT_KEEP_ALIVE);
        let given = pool.clone();
        run(async move {
            let first = run_in_executor(Some(&given), || -> u8 {
                panic::panic_any(PanicsWhenDropped)
            })
            .await;
            let second = run_in_executor(Some(&given), || 2_u8).await;
            (first, second, given)
        })
        .expect("main finishes")
    });
    assert!(
        matches!(first, Err(OffloadError::Panicked(_))),
        "got {first:?}"
    );
    assert_eq!(second, Ok(2));
    assert!(pool.is_open(), "the pool is not broken: {pool:?}");
    assert_eq!(pool.threads(), 1);
    assert!(pool.shutdown(oneloop_testkit::DEFAULT_LIMIT).is_clean());
}

#[test]
fn a_payload_whose_drop_panics_again_without_end_is_cut_off_and_the_future_resolves() {
    let drops = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&drops);
    let outcome = watchdog_default(move || {
        run(async move {
            to_thread(move || -> u8 { panic::panic_any(PanicsAgainForEver(counted)) }).await
        })
        .expect("main finishes")
    });
    assert!(
        matches!(outcome, Err(OffloadError::Panicked(_))),
        "got {outcome:?}"
    );
    let dropped = drops.load(Ordering::SeqCst);
    assert!(
        (1..100).contains(&dropped),
        "the chain of payloads was followed {dropped} times"
    );
}
