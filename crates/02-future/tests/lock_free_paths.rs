//! Which calls on a `OneShot` stay off its lock.
//!
//! A waiter registers and a producer settles under the future's lock. Three calls need
//! no lock at all: making a waiter (its id comes from an atomic counter), asking
//! `done`, and dropping a waiter once the future is settled (settling already took
//! every waker out). Each test holds the lock on another thread, through a value whose
//! `clone` waits while `result` clones it under the lock, and makes the call: a call
//! that took the lock would wait for ever, and the watchdog would fail the test.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use oneloop_future::OneShot;
use oneloop_testkit::watchdog_default;

/// A value whose first clone waits at a barrier twice: once to say "the lock is held",
/// once for the test to say "done, let go".
struct Gate {
    barrier: Arc<Barrier>,
    armed: Arc<AtomicBool>,
}

impl Clone for Gate {
    fn clone(&self) -> Self {
        if self.armed.swap(false, Ordering::SeqCst) {
            self.barrier.wait();
            self.barrier.wait();
        }
        Self {
            barrier: Arc::clone(&self.barrier),
            armed: Arc::clone(&self.armed),
        }
    }
}

/// Runs `body` on this thread while another thread holds `future`'s lock (it is inside
/// `result`, cloning the settled value).
fn while_locked(future: &OneShot<Gate, ()>, barrier: &Arc<Barrier>, body: impl FnOnce()) {
    let holder = {
        let future = future.clone();
        thread::spawn(move || drop(future.result()))
    };
    barrier.wait();
    body();
    barrier.wait();
    holder.join().expect("the holder does not panic");
}

/// A pending future, the value to settle it with (its first clone will hold the lock),
/// and the barrier that clone waits at.
fn pending_gate() -> (OneShot<Gate, ()>, Gate, Arc<Barrier>) {
    let barrier = Arc::new(Barrier::new(2));
    let gate = Gate {
        barrier: Arc::clone(&barrier),
        armed: Arc::new(AtomicBool::new(true)),
    };
    (OneShot::new(), gate, barrier)
}

/// A settled future whose next clone holds the lock, and the barrier of that clone.
fn settled_gate() -> (OneShot<Gate, ()>, Arc<Barrier>) {
    let (future, gate, barrier) = pending_gate();
    future.set_result(gate).map_err(|_| "pending").unwrap();
    (future, barrier)
}

#[test]
fn dropping_a_waiter_of_a_settled_future_takes_no_lock() {
    watchdog_default(|| {
        let (future, gate, barrier) = pending_gate();
        // A waiter made before the future is settled, never polled.
        let early = future.wait();
        future.set_result(gate).map_err(|_| "pending").unwrap();
        while_locked(&future, &barrier, move || drop(early));
    });
}

#[test]
fn making_a_waiter_takes_no_lock() {
    watchdog_default(|| {
        let (future, barrier) = settled_gate();
        let probe = future.clone();
        while_locked(&future, &barrier, move || {
            let waiter = probe.wait();
            // Dropped while the lock is still held: settled, so no lock either.
            drop(waiter);
        });
    });
}

#[test]
fn asking_done_takes_no_lock() {
    watchdog_default(|| {
        let (future, barrier) = settled_gate();
        let probe = future.clone();
        while_locked(&future, &barrier, move || assert!(probe.done()));
    });
}
