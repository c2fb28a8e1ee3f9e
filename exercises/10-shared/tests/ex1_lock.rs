//! Exercise 1: the lock's first-in first-out hand-off, with no barging.

use std::cell::Cell;
use std::rc::Rc;

use crate::common::{
    Log, bare_yield, first_poll_elsewhere, pending_after_one_poll, plain_yield, run, turn,
};
use ex10_shared::{BOUND_TO_ANOTHER_LOOP, LOCK_NOT_ACQUIRED, Lock};
use oneloop_cancel::{Error, spawn_named};
use oneloop_testkit::watchdog_default;

/// A task that takes `lock`, holds it across one yield (checking nobody else holds it
/// meanwhile), and releases it, logging each step.
fn holder(
    name: &'static str,
    lock: &Rc<Lock>,
    log: &Log,
    holders: &Rc<Cell<u32>>,
) -> oneloop_cancel::Task<()> {
    let (lock, log, holders) = (Rc::clone(lock), log.clone(), Rc::clone(holders));
    spawn_named(name, async move {
        lock.acquire().await?;
        holders.set(holders.get() + 1);
        assert_eq!(holders.get(), 1, "{name} holds the lock alone");
        log.say(format!("{name}-acquired"));
        bare_yield().await?;
        holders.set(holders.get() - 1);
        log.say(format!("{name}-releases"));
        lock.release()
    })
}

#[test]
fn ex1_a_free_lock_is_taken_at_once_without_a_turn() {
    watchdog_default(|| {
        let result = run(async {
            let lock = Lock::new();
            let before = turn();
            lock.acquire().await?;
            Ok((before, turn(), lock.locked()))
        });
        let (before, after, locked) = result.expect("main ends well");
        assert_eq!(before, after, "no suspension when the lock is free");
        assert!(locked);
    });
}

#[test]
fn ex1_three_waiters_get_the_lock_first_in_first_out_one_turn_after_each_release() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let tasks: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| holder(name, &lock, &l, &holders))
                .collect();
            bare_yield().await?;
            assert_eq!(lock.waiters(), 3, "all three queued");
            l.say("main-releases");
            lock.release()?;
            for task in &tasks {
                task.join().await?;
            }
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            [
                "main-releases",
                "a-acquired",
                "a-releases",
                "b-acquired",
                "b-releases",
                "c-acquired",
                "c-releases"
            ],
            "first in, first out: {:?}",
            log.lines()
        );
        // Each waiter runs in the turn after the release that woke it: the wake queues
        // its step on the ready queue, no extra callback in between.
        for (released, acquired) in [
            ("main-releases", "a-acquired"),
            ("a-releases", "b-acquired"),
            ("b-releases", "c-acquired"),
        ] {
            assert_eq!(
                log.turn_of(acquired),
                log.turn_of(released) + 1,
                "{acquired} one turn after {released}: {:?}",
                log.lines()
            );
        }
    });
}

#[test]
fn ex1_a_release_wakes_one_waiter_not_all() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let tasks: Vec<_> = ["a", "b"]
                .into_iter()
                .map(|name| holder(name, &lock, &l, &holders))
                .collect();
            bare_yield().await?;
            lock.release()?;
            // In the turn the first waiter takes the lock, the second still waits.
            bare_yield().await?;
            l.say(format!("waiting-{}", lock.waiters()));
            for task in &tasks {
                task.join().await?;
            }
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts()[..2],
            ["a-acquired".to_owned(), "waiting-1".to_owned()],
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_a_newcomer_queues_behind_a_woken_waiter_instead_of_barging() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            bare_yield().await?;
            lock.release()?;
            // Free, but a's wake is on its way: asking again queues behind a.
            assert!(!lock.locked());
            lock.acquire().await?;
            l.say("main-acquired-again");
            lock.release()?;
            a.join().await
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["a-acquired", "a-releases", "main-acquired-again"],
            "no barging: {:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_a_waiter_cancelled_while_queued_leaves_and_the_next_gets_the_lock() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            let b = holder("b", &lock, &l, &holders);
            bare_yield().await?;
            a.cancel(None);
            l.say("main-releases");
            lock.release()?;
            b.join().await?;
            let a_result = a.join().await;
            l.say(format!("a-{a_result:?}-waiters-{}", lock.waiters()));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            [
                "main-releases",
                "b-acquired",
                "b-releases",
                "a-Err(Cancelled(None))-waiters-0"
            ],
            "{:?}",
            log.lines()
        );
        // CPython's turns: the release skips the cancelled waiter, which leaves the
        // queue in the next turn and wakes b, who runs one turn later.
        assert_eq!(
            log.turn_of("b-acquired"),
            log.turn_of("main-releases") + 2,
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_a_waiter_cancelled_while_the_lock_is_held_wakes_no_one() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            let b = holder("b", &lock, &l, &holders);
            bare_yield().await?;
            a.cancel(None);
            // a leaves the queue in these turns while main still holds the lock: its
            // way out must not wake b, or b would take a lock that is not free.
            bare_yield().await?;
            bare_yield().await?;
            assert_eq!(
                (holders.get(), l.texts()),
                (0, Vec::<String>::new()),
                "b took the lock while main held it: a waiter cancelled while the lock is \
                 held must leave without waking the next one"
            );
            l.say(format!("main-releases-{}-waiting", lock.waiters()));
            lock.release()?;
            b.join().await?;
            assert!(a.join().await.is_err(), "a ends cancelled");
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["main-releases-1-waiting", "b-acquired", "b-releases"],
            "a cancelled waiter wakes the next one only if the lock is free: {:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_an_acquire_that_must_wait_delivers_a_cancel_made_before_it() {
    watchdog_default(|| {
        let taken = run(async move {
            let lock = Rc::new(Lock::new());
            lock.acquire().await?;
            let l = Rc::clone(&lock);
            let b = spawn_named("b", async move {
                plain_yield().await;
                // The request came while b was away: this acquire is where b sees it.
                l.acquire().await?;
                l.release()
            });
            bare_yield().await?;
            b.cancel(None);
            bare_yield().await?;
            let waiting = lock.waiters();
            lock.release()?;
            Ok((waiting, b.join().await))
        })
        .expect("main ends well");
        assert_eq!(
            taken,
            (0, Err(Error::Cancelled(None))),
            "an acquire that would wait is a cancellation point: with a cancel request \
             not yet delivered it returns the cancel instead of queueing a waiter"
        );
    });
}

#[test]
fn ex1_a_newcomer_takes_a_free_lock_whose_only_waiter_is_cancelled() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            bare_yield().await?;
            a.cancel(None);
            lock.release()?;
            // a is still queued, but cancelled: it does not count, as in asyncio.
            let before = turn();
            lock.acquire().await?;
            l.say(format!("main-acquired-after-{}-turns", turn() - before));
            lock.release()?;
            assert!(a.join().await.is_err(), "a ends cancelled");
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["main-acquired-after-0-turns"],
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_a_waiter_cancelled_after_its_wake_passes_the_wake_on() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            let b = holder("b", &lock, &l, &holders);
            bare_yield().await?;
            l.say("main-releases");
            lock.release()?;
            // a is woken now; cancelled before it runs, it must not keep the wake.
            a.cancel(None);
            b.join().await?;
            assert!(a.join().await.is_err(), "a ends cancelled");
            l.say(format!(
                "locked-{}-waiters-{}",
                lock.locked(),
                lock.waiters()
            ));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            [
                "main-releases",
                "b-acquired",
                "b-releases",
                "locked-false-waiters-0"
            ],
            "{:?}",
            log.lines()
        );
        assert_eq!(
            log.turn_of("b-acquired"),
            log.turn_of("main-releases") + 2,
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_an_aborted_waiter_leaves_the_queue_and_the_next_gets_the_lock() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            let b = holder("b", &lock, &l, &holders);
            bare_yield().await?;
            lock.release()?;
            // Rust's abort drops a's acquire, woken but not yet run.
            a.abort();
            b.join().await?;
            l.say(format!("waiters-{}", lock.waiters()));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["b-acquired", "b-releases", "waiters-0"],
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex1_releasing_a_free_lock_is_an_error_and_the_loop_goes_on() {
    watchdog_default(|| {
        let result = run(async {
            let lock = Lock::new();
            let first = lock.release();
            lock.acquire().await?;
            lock.release()?;
            let second = lock.release();
            bare_yield().await?;
            Ok((first, second, lock.locked()))
        });
        let misuse = Err(Error::Misuse(LOCK_NOT_ACQUIRED));
        assert_eq!(result, Ok((misuse.clone(), misuse, false)));
    });
}

#[test]
fn ex1_a_lock_that_waited_on_one_loop_cannot_wait_on_another() {
    watchdog_default(|| {
        let lock = Rc::new(Lock::new());
        // First loop: a wait binds the lock to it.
        let l = Rc::clone(&lock);
        run(async move {
            l.acquire().await?;
            let l2 = Rc::clone(&l);
            let waiter = spawn_named("waiter", async move {
                l2.acquire().await?;
                l2.release()
            });
            bare_yield().await?;
            l.release()?;
            waiter.join().await
        })
        .expect("the first loop uses it");
        // Second loop: taking the free lock needs no wait, but a wait is refused.
        let l = Rc::clone(&lock);
        let result = run(async move {
            l.acquire().await?;
            let l2 = Rc::clone(&l);
            let waiter = spawn_named("waiter", async move { l2.acquire().await });
            let refused = waiter.join().await;
            l.release()?;
            Ok(refused)
        });
        assert_eq!(result, Ok(Err(Error::Misuse(BOUND_TO_ANOTHER_LOOP))));
    });
}

/// Polls `future`, and after its first `Pending` wakes its own task once: the next
/// poll of `future` is then a spurious one, with nothing handed to it.
async fn nudged<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut nudged = false;
    std::future::poll_fn(move |cx| {
        let poll = future.as_mut().poll(cx);
        if poll.is_pending() && !nudged {
            nudged = true;
            cx.waker().wake_by_ref();
        }
        poll
    })
    .await
}

/// The wrong mechanism "a queued waiter takes the lock whenever it finds it free":
/// a waiter polled without a wake (here b, nudged) while the lock is free but handed
/// to the waiter before it (a) must not take it. Only a wake hands the lock over.
#[test]
fn ex1_a_queued_waiter_polled_without_a_wake_does_not_take_the_free_lock() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            let (lk, bl, bh) = (Rc::clone(&lock), l.clone(), Rc::clone(&holders));
            let b = spawn_named("b", async move {
                nudged(lk.acquire()).await?;
                bh.set(bh.get() + 1);
                assert_eq!(bh.get(), 1, "b holds the lock alone");
                bl.say("b-acquired");
                bh.set(bh.get() - 1);
                lk.release()
            });
            // a and b queue, and b's nudge is queued; the release then wakes a, whose
            // step runs after b's spurious poll, with the lock free.
            bare_yield().await?;
            lock.release()?;
            a.join().await?;
            b.join().await
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["a-acquired", "a-releases", "b-acquired"],
            "a waiter that was not woken must wait on: {:?}",
            log.lines()
        );
    });
}

/// The wrong mechanism "keep the waker of the first poll": a waiter polled again by
/// another waker must keep the latest one, or the release wakes a waker nobody
/// listens to and the task waits for ever (the loop stalls).
#[test]
fn ex1_a_waiter_polled_by_another_waker_is_woken_through_the_latest() {
    watchdog_default(|| {
        let result = run(async {
            let lock = Rc::new(Lock::new());
            lock.acquire().await?;
            let lk = Rc::clone(&lock);
            let a = spawn_named("a", async move {
                first_poll_elsewhere(lk.acquire()).await?;
                lk.release()?;
                Ok("a-acquired")
            });
            // a queues with the other waker, then is polled again with its own.
            bare_yield().await?;
            bare_yield().await?;
            lock.release()?;
            a.join().await
        });
        assert_eq!(result, Ok("a-acquired"));
    });
}

/// The wrong mechanism "a dropped acquire always passes the turn on": an acquire
/// dropped while the lock is held (here by an abort) must leave the queue without
/// waking the next waiter, or that waiter takes a lock that is not free.
#[test]
fn ex1_an_aborted_waiter_while_the_lock_is_held_wakes_no_one() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let lock = Rc::new(Lock::new());
            let holders = Rc::new(Cell::new(0));
            lock.acquire().await?;
            let a = holder("a", &lock, &l, &holders);
            let b = holder("b", &lock, &l, &holders);
            bare_yield().await?;
            a.abort();
            bare_yield().await?;
            bare_yield().await?;
            assert_eq!(
                (holders.get(), l.texts()),
                (0, Vec::<String>::new()),
                "b took the lock while main held it"
            );
            l.say(format!("main-releases-{}-waiting", lock.waiters()));
            lock.release()?;
            b.join().await
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["main-releases-1-waiting", "b-acquired", "b-releases"],
            "{:?}",
            log.lines()
        );
    });
}

/// The wrong mechanism "`with` takes the lock and forgets it": the body runs holding
/// the lock, and the lock is free again once `with` returns.
#[test]
fn ex1_with_runs_the_body_holding_the_lock_and_releases_it_after() {
    watchdog_default(|| {
        let result = run(async {
            let lock = Rc::new(Lock::new());
            let inside = lock.with(async { lock.locked() }).await?;
            let after = lock.locked();
            let again = lock.with(async { 5 }).await?;
            Ok((inside, after, again, lock.locked()))
        });
        assert_eq!(result, Ok((true, false, 5, false)));
    });
}

#[test]
fn ex1_a_waiter_whose_cancel_is_taken_at_another_await_still_gets_the_lock() {
    watchdog_default(|| {
        // a queues for a held lock, then awaits a sleep and is cancelled there. The
        // release's wake skips a's waiter (it looks cancelled) and marks it passed over;
        // back at its acquire with no cancel left, a must ask again and get the lock.
        let result = run(async {
            let lock = Rc::new(Lock::new());
            lock.acquire().await?;
            let held = Rc::clone(&lock);
            let a = spawn_named("a", async move {
                let mut acquire = held.acquire();
                let parked = pending_after_one_poll(&mut acquire).await;
                assert!(parked, "a queues");
                let slept = oneloop_cancel::sleep(std::time::Duration::from_secs(10)).await;
                acquire.await?;
                held.release()?;
                Ok(slept)
            });
            bare_yield().await?;
            assert!(a.cancel(None));
            lock.release()?;
            a.join().await
        });
        assert_eq!(result, Ok(Err(Error::Cancelled(None))));
    });
}

#[test]
fn ex1_a_lock_with_dropped_while_its_body_runs_releases_the_lock() {
    use oneloop_cancel::{LoserFate, Selected, select};
    watchdog_default(|| {
        // `with`'s body loses a select and is dropped while it holds the lock: the drop
        // is Rust's cancel, and the lock must be free for the next task.
        let result = run(async {
            let lock = Rc::new(Lock::new());
            let held = lock.with(oneloop_cancel::sleep(std::time::Duration::from_secs(10)));
            let short = oneloop_cancel::sleep(std::time::Duration::from_secs(1));
            let dropped = matches!(
                select(held, short).await,
                Selected::Second(Ok(()), LoserFate::Dropped)
            );
            let free = !lock.locked();
            let next_lock = Rc::clone(&lock);
            let next = spawn_named("next", async move {
                next_lock.acquire().await?;
                next_lock.release()
            });
            Ok((dropped, free, next.join().await))
        });
        assert_eq!(result, Ok((true, true, Ok(()))));
    });
}
