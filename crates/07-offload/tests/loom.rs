//! loom's model of the inbox protocol: push under the lock, then wake; and of the idle
//! park on live handles: announce, then look.
//!
//! Built and run only under `--cfg loom` (CI's loom phase, with its own target dir):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p oneloop-offload --test loom
//! ```
//!
//! loom runs each model many times, once for every order in which its threads can take
//! the inbox's lock and the stand-in's lock, and fails a model when any order ends in
//! a deadlock (every thread blocked) or a failed assertion.
//!
//! The loop's side is the offload driver's park, step by step: if the inbox holds
//! items, park with a zero timeout, else park until woken; then take the whole inbox and
//! run what it held. The stand-in for the `Unparker` keeps the eventfd's rule (a wake
//! that comes before the park is kept, and that park returns at once), which is all the
//! protocol asks of it; loom cannot model the eventfd write itself.
#![cfg(loom)]

use std::sync::Arc;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Condvar, Mutex};
use loom::thread;
use oneloop_core::hooks::{Unpark, Unparker};
use oneloop_offload::OffloadError;
use oneloop_offload::loom_model::Inbox;

/// The eventfd, as far as the protocol needs it: a token that a wake sets and a park
/// consumes, waiting for it unless the timeout is zero.
#[derive(Default)]
struct Token {
    set: Mutex<bool>,
    changed: Condvar,
}

impl Token {
    fn park(&self, zero_timeout: bool) {
        let mut set = self.set.lock().unwrap();
        if !zero_timeout {
            while !*set {
                set = self.changed.wait(set).unwrap();
            }
        }
        *set = false;
    }
}

struct TokenUnpark(Arc<Token>);

impl Unpark for TokenUnpark {
    fn unpark(&self) {
        *self.0.set.lock().unwrap() = true;
        self.0.changed.notify_one();
    }
}

/// An inbox whose wake is a [`Token`].
fn inbox() -> (Inbox, Arc<Token>) {
    let token = Arc::new(Token::default());
    let inbox = Inbox::new(Unparker::new(TokenUnpark(Arc::clone(&token))));
    (inbox, token)
}

/// An unparker that wakes nothing, for the model of the wrong order: there the pusher
/// wakes the token itself, before the push.
struct Silent;

impl Unpark for Silent {
    fn unpark(&self) {}
}

/// The loop's side: parks and drains until `expected` callbacks ran. A lost wake leaves
/// it parked for ever, with the pushers done: loom reports the deadlock.
fn run_loop(inbox: &Inbox, token: &Token, ran: &AtomicUsize, expected: usize) {
    while ran.load(Ordering::SeqCst) < expected {
        token.park(inbox.pending() > 0);
        for callback in inbox.take() {
            callback();
        }
    }
}

/// Every order of the model's threads with at most three preemptions (a thread made to
/// stop where it could have gone on), for the models with two pushers. Each pusher's
/// handle drop is seen by loom too (the count of live handles), and with both pushers
/// the full search takes minutes; loom's own guide says most bugs show with a bound
/// of two or three.
fn model_with_three_preemptions(model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(model);
}

/// A callback that counts its run.
fn counting(ran: &Arc<AtomicUsize>) -> impl FnOnce() + Send + 'static {
    let ran = Arc::clone(ran);
    move || {
        ran.fetch_add(1, Ordering::SeqCst);
    }
}

/// `count` threads, each pushing one counting callback; join them for their results.
fn spawn_pushers(
    inbox: &Inbox,
    ran: &Arc<AtomicUsize>,
    count: usize,
) -> Vec<thread::JoinHandle<Result<(), OffloadError>>> {
    (0..count)
        .map(|_| {
            let handle = inbox.handle();
            let callback = counting(ran);
            thread::spawn(move || handle.call_soon_threadsafe(callback))
        })
        .collect()
}

#[test]
fn a_push_then_wake_is_never_lost() {
    loom::model(|| {
        let (inbox, token) = inbox();
        let ran = Arc::new(AtomicUsize::new(0));
        let handle = inbox.handle();
        let callback = counting(&ran);
        let pusher = thread::spawn(move || handle.call_soon_threadsafe(callback));
        run_loop(&inbox, &token, &ran, 1);
        assert_eq!(pusher.join().unwrap(), Ok(()));
    });
}

#[test]
fn two_threads_pushing_then_waking_are_both_seen() {
    // Two wakes may fold into one token: the drain must still find both pushes.
    model_with_three_preemptions(|| {
        let (inbox, token) = inbox();
        let ran = Arc::new(AtomicUsize::new(0));
        let pushers = spawn_pushers(&inbox, &ran, 2);
        run_loop(&inbox, &token, &ran, 2);
        for pusher in pushers {
            assert_eq!(pusher.join().unwrap(), Ok(()));
        }
    });
}

#[test]
fn a_drain_that_reads_the_count_without_the_lock_misses_no_push() {
    // The real drain reads the count first and skips the lock on zero. A read that
    // races a push and sees zero must be followed by a park that returns at once.
    model_with_three_preemptions(|| {
        let (inbox, token) = inbox();
        let ran = Arc::new(AtomicUsize::new(0));
        let pushers = spawn_pushers(&inbox, &ran, 2);
        while ran.load(Ordering::SeqCst) < 2 {
            token.park(inbox.pending() > 0);
            for callback in inbox.drain() {
                callback();
            }
        }
        for pusher in pushers {
            assert_eq!(pusher.join().unwrap(), Ok(()));
        }
    });
}

#[test]
#[should_panic(expected = "deadlock")]
fn a_wake_before_the_push_is_lost_and_loom_sees_it() {
    // The wrong order: the pusher wakes the loop first, then pushes (the real push,
    // whose own wake is silenced). The wake can be spent on a park whose drain finds
    // the inbox still empty; the push lands after, and the loop parks for ever.
    loom::model(|| {
        let token = Arc::new(Token::default());
        let inbox = Inbox::new(Unparker::new(Silent));
        let ran = Arc::new(AtomicUsize::new(0));
        let handle = inbox.handle();
        let wake = TokenUnpark(Arc::clone(&token));
        let callback = counting(&ran);
        let pusher = thread::spawn(move || {
            wake.unpark();
            handle.call_soon_threadsafe(callback)
        });
        run_loop(&inbox, &token, &ran, 1);
        assert_eq!(pusher.join().unwrap(), Ok(()));
    });
}

/// A queue with a count beside its lock, as the inbox keeps them, for the model of the
/// wrong take below (the real take cannot be made wrong from outside).
#[derive(Default)]
struct CountedQueue {
    items: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
    count: AtomicUsize,
}

#[test]
#[should_panic(expected = "deadlock")]
fn a_take_that_zeroes_the_count_after_the_unlock_hides_a_push_and_loom_sees_it() {
    // The wrong take: the items under the lock, the zero stored after the unlock. A
    // push can land between the two and store its count, which the zero then hides:
    // the loop, reading zero, never takes the lock again, and parks for ever.
    model_with_three_preemptions(|| {
        let token = Arc::new(Token::default());
        let queue = Arc::new(CountedQueue::default());
        let ran = Arc::new(AtomicUsize::new(0));
        let pushers: Vec<_> = (0..2)
            .map(|_| {
                let (queue, callback) = (Arc::clone(&queue), counting(&ran));
                let wake = TokenUnpark(Arc::clone(&token));
                thread::spawn(move || {
                    let mut items = queue.items.lock().unwrap();
                    items.push(Box::new(callback));
                    queue.count.store(items.len(), Ordering::Release);
                    drop(items);
                    wake.unpark();
                })
            })
            .collect();
        while ran.load(Ordering::SeqCst) < 2 {
            token.park(queue.count.load(Ordering::Acquire) > 0);
            if queue.count.load(Ordering::Acquire) == 0 {
                continue;
            }
            let taken = std::mem::take(&mut *queue.items.lock().unwrap());
            queue.count.store(0, Ordering::Release);
            for callback in taken {
                callback();
            }
        }
        for pusher in pushers {
            pusher.join().unwrap();
        }
    });
}

#[test]
fn the_last_handle_dropped_unused_as_the_loop_parks_on_it_is_seen() {
    // The loop's stall check counted one handle; the thread that holds it drops it
    // unused while the loop announces its idle park and looks again. Either the look
    // sees no handle (a zero timeout) or the drop sees the announcement (a wake).
    loom::model(|| {
        let (inbox, token) = inbox();
        let handle = inbox.handle();
        let counted = inbox.handles();
        let dropper = thread::spawn(move || drop(handle));
        let may_sleep = inbox.begin_idle_park(counted);
        token.park(!may_sleep);
        inbox.end_idle_park();
        assert_eq!(inbox.handles(), 0, "the next stall check sees the drop");
        dropper.join().unwrap();
    });
}

#[test]
#[should_panic(expected = "deadlock")]
fn a_look_before_the_announcement_loses_the_drop_and_loom_sees_it() {
    // The wrong order: the loop looks at the count, then announces. The drop can land
    // between the two: it finds no announcement and wakes nobody, and the loop, which
    // saw a handle, sleeps for ever.
    loom::model(|| {
        let (inbox, token) = inbox();
        let handle = inbox.handle();
        let dropper = thread::spawn(move || drop(handle));
        let may_sleep = inbox.handles() > 0;
        inbox.announce_idle();
        // Dropped before the park: loom's deadlock panic unwinds this thread, and its
        // locks may not be dropped by that unwinding (their drop panics again).
        drop(inbox);
        token.park(!may_sleep);
        dropper.join().unwrap();
    });
}

#[test]
fn a_push_racing_the_close_either_fails_or_is_dropped_by_the_close() {
    loom::model(|| {
        let (inbox, _token) = inbox();
        let ran = Arc::new(AtomicUsize::new(0));
        let handle = inbox.handle();
        let callback = counting(&ran);
        let pusher = thread::spawn(move || handle.call_soon_threadsafe(callback));
        let dropped = inbox.close();
        let pushed = pusher.join().unwrap();
        match pushed {
            // Landed before the close: the close dropped it.
            Ok(()) => assert_eq!(dropped, 1),
            // Came after: refused, and dropped at once.
            Err(error) => {
                assert_eq!(error, OffloadError::LoopClosed);
                assert_eq!(dropped, 0);
            }
        }
        assert!(inbox.take().is_empty(), "a closed inbox holds nothing");
        assert_eq!(ran.load(Ordering::SeqCst), 0, "nothing ran");
        // Every callback (and the Arc it held) is gone.
        assert_eq!(Arc::strong_count(&ran), 1);
    });
}
