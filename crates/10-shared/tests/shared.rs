//! The primitives that are not exercises, task-locals across callbacks and threads,
//! and the lost update. (The lock, the queue's pair and copy-on-spawn are specified by
//! the exercise tests in `exercises/10-shared/tests`, run here with `--features
//! solution`.)

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, spawn_named};
use oneloop_shared::{
    BOUND_TO_ANOTHER_LOOP, BOUNDED_OVER_RELEASE, Barrier, BoundedSemaphore, CONDITION_NOT_LOCKED,
    Condition, Context, Event, Queue, Semaphore, TaskLocal, call_soon, call_soon_in, lost_update,
    to_thread,
};
use oneloop_testkit::watchdog_default;

fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { spawn_named("main", main).join().await })
        .expect("the loop runs to the end")
}

fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}

async fn bare_yield() -> Result<(), Error> {
    oneloop_cancel::sleep(Duration::ZERO).await
}

type Log = Rc<RefCell<Vec<(u64, String)>>>;

fn say(log: &Log, what: impl Into<String>) {
    log.borrow_mut().push((turn(), what.into()));
}

fn texts(log: &Log) -> Vec<String> {
    log.borrow().iter().map(|(_, w)| w.clone()).collect()
}

#[test]
fn two_workers_without_a_lock_lose_half_their_updates_and_none_with_one() {
    let unlocked = lost_update(2, 100, false);
    assert_eq!(
        (unlocked.expected, unlocked.counted, unlocked.lost()),
        (200, 100, 100)
    );
    let locked = lost_update(2, 100, true);
    assert_eq!(
        (locked.expected, locked.counted, locked.lost()),
        (200, 200, 0)
    );
}

#[test]
fn an_event_set_wakes_every_waiter_and_all_run_in_the_next_turn() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let event = Rc::new(Event::new());
            let tasks: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| {
                    let (event, l) = (Rc::clone(&event), Rc::clone(&l));
                    spawn_named(name, async move {
                        event.wait().await?;
                        say(&l, format!("{name}-woke"));
                        Ok(())
                    })
                })
                .collect();
            bare_yield().await?;
            say(&l, "set");
            event.set();
            for task in &tasks {
                task.join().await?;
            }
            let before = turn();
            event.wait().await?;
            say(&l, format!("set-event-waited-{}-turns", turn() - before));
            event.clear();
            assert!(!event.is_set());
            Ok(())
        })
        .expect("main ends well");
        let lines = log.borrow().clone();
        let set = lines[0].0;
        assert_eq!(
            lines[1..4].iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            [set + 1; 3],
            "all three in one turn: {lines:?}"
        );
        assert_eq!(lines[4].1, "set-event-waited-0-turns");
    });
}

#[test]
fn a_condition_notify_wakes_that_many_and_each_takes_the_lock_back() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let cond = Rc::new(Condition::new());
            let ready = Rc::new(Cell::new(0));
            let tasks: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| {
                    let (cond, l, ready) = (Rc::clone(&cond), Rc::clone(&l), Rc::clone(&ready));
                    spawn_named(name, async move {
                        cond.acquire().await?;
                        cond.wait_for(|| ready.get() > 0).await?;
                        assert!(cond.lock().locked(), "{name} holds the lock again");
                        ready.set(ready.get() - 1);
                        say(&l, format!("{name}-notified"));
                        cond.release()
                    })
                })
                .collect();
            bare_yield().await?;
            assert_eq!(cond.notify(1), Err(Error::Misuse(CONDITION_NOT_LOCKED)));
            assert_eq!(cond.wait().await, Err(Error::Misuse(CONDITION_NOT_LOCKED)));
            cond.acquire().await?;
            ready.set(2);
            cond.notify(2)?;
            cond.release()?;
            for _ in 0..4 {
                bare_yield().await?;
            }
            say(&l, "main-notifies-the-last");
            cond.acquire().await?;
            ready.set(1);
            cond.notify_all()?;
            cond.release()?;
            for task in &tasks {
                task.join().await?;
            }
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            texts(&log),
            [
                "a-notified",
                "b-notified",
                "main-notifies-the-last",
                "c-notified"
            ]
        );
    });
}

#[test]
fn a_condition_waiter_cancelled_takes_the_lock_back_before_it_sees_the_cancel() {
    watchdog_default(|| {
        let result = run(async {
            let cond = Rc::new(Condition::new());
            let c = Rc::clone(&cond);
            let waiter = spawn_named("waiter", async move {
                c.acquire().await?;
                let waited = c.wait().await;
                let held = c.lock().locked();
                c.release()?;
                Ok((waited, held))
            });
            bare_yield().await?;
            waiter.cancel(None);
            waiter.join().await
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), true)));
    });
}

#[test]
fn a_semaphore_of_two_lets_two_in_at_a_time_first_come_first_served() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let sem = Rc::new(Semaphore::new(2));
            let inside = Rc::new(Cell::new(0));
            let most = Rc::new(Cell::new(0));
            let tasks: Vec<_> = ["a", "b", "c", "d"]
                .into_iter()
                .map(|name| {
                    let (sem, l) = (Rc::clone(&sem), Rc::clone(&l));
                    let (inside, most) = (Rc::clone(&inside), Rc::clone(&most));
                    spawn_named(name, async move {
                        sem.acquire().await?;
                        inside.set(inside.get() + 1);
                        most.set(most.get().max(inside.get()));
                        assert!(inside.get() <= 2, "at most two inside");
                        say(&l, format!("{name}-in"));
                        bare_yield().await?;
                        inside.set(inside.get() - 1);
                        sem.release();
                        Ok(())
                    })
                })
                .collect();
            for task in &tasks {
                task.join().await?;
            }
            assert_eq!(sem.value(), 2);
            // Two units: two workers work at the same time, not one after the other.
            assert_eq!(most.get(), 2, "two inside at once");
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(texts(&log), ["a-in", "b-in", "c-in", "d-in"]);
    });
}

#[test]
fn a_semaphore_waiter_cancelled_after_its_wake_gives_the_unit_on() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let sem = Rc::new(Semaphore::new(1));
            sem.acquire().await?;
            let waiter = |name: &'static str| {
                let (sem, l) = (Rc::clone(&sem), Rc::clone(&l));
                spawn_named(name, async move {
                    sem.acquire().await?;
                    say(&l, format!("{name}-in"));
                    sem.release();
                    Ok(())
                })
            };
            let (a, b) = (waiter("a"), waiter("b"));
            bare_yield().await?;
            sem.release();
            // A newcomer does not barge past the woken waiter.
            assert!(sem.locked());
            a.cancel(None);
            b.join().await?;
            assert!(a.join().await.is_err(), "a ends cancelled");
            say(&l, format!("value-{}", sem.value()));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(texts(&log), ["b-in", "value-1"]);
    });
}

#[test]
fn a_bounded_semaphore_released_too_often_is_an_error_and_keeps_its_value() {
    watchdog_default(|| {
        let result = run(async {
            let sem = BoundedSemaphore::new(1);
            let over = sem.release();
            sem.acquire().await?;
            sem.release()?;
            let again = sem.release();
            Ok((over, again, sem.value(), sem.locked()))
        });
        let misuse = Err(Error::Misuse(BOUNDED_OVER_RELEASE));
        assert_eq!(result, Ok((misuse.clone(), misuse, 1, false)));
    });
}

/// asyncio's `Barrier(0)` raises `ValueError("parties must be > 0")`: a barrier of
/// nobody is refused when it is made, not turned into a barrier of one.
#[test]
#[should_panic(expected = "a barrier needs at least one party")]
fn a_barrier_of_no_party_is_refused() {
    let _ = Barrier::new(0);
}

#[test]
fn a_barrier_lets_its_parties_go_together_with_their_arrival_index() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let barrier = Rc::new(Barrier::new(3));
            let tasks: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| {
                    let (barrier, l) = (Rc::clone(&barrier), Rc::clone(&l));
                    spawn_named(name, async move {
                        let index = barrier.wait().await?;
                        say(&l, format!("{name}-{index}"));
                        Ok(())
                    })
                })
                .collect();
            for task in &tasks {
                task.join().await?;
            }
            let (b, l2) = (Rc::clone(&barrier), Rc::clone(&l));
            let stuck = spawn_named("stuck", async move {
                let waited = b.wait().await;
                say(&l2, format!("stuck-{waited:?}"));
                Ok(())
            });
            bare_yield().await?;
            barrier.abort();
            stuck.join().await?;
            assert!(barrier.broken());
            Ok(())
        })
        .expect("main ends well");
        let lines = log.borrow().clone();
        // c arrives last and goes on at once; a and b wake in the next turn.
        assert_eq!(
            texts(&log),
            [
                "c-2",
                "a-0",
                "b-1",
                "stuck-Err(Failed(\"the barrier is broken\"))"
            ]
        );
        assert_eq!(lines[1].0, lines[0].0 + 1);
        assert_eq!(lines[2].0, lines[0].0 + 1);
    });
}

#[test]
fn an_event_that_waited_on_one_loop_cannot_wait_on_another_and_that_loop_goes_on() {
    watchdog_default(|| {
        let event = Rc::new(Event::new());
        let e = Rc::clone(&event);
        run(async move {
            let e2 = Rc::clone(&e);
            let waiter = spawn_named("waiter", async move { e2.wait().await });
            bare_yield().await?;
            e.set();
            waiter.join().await
        })
        .expect("the first loop uses it");
        event.clear();
        let e = Rc::clone(&event);
        let result = run(async move {
            let refused = e.wait().await;
            // The loop goes on after the error.
            bare_yield().await?;
            Ok(refused)
        });
        assert_eq!(result, Ok(Err(Error::Misuse(BOUND_TO_ANOTHER_LOOP))));
    });
}

#[test]
fn call_soon_runs_in_a_copy_and_call_soon_in_in_the_context_given() {
    watchdog_default(|| {
        let var = Rc::new(TaskLocal::with_default("v", 0u32));
        let seen = Rc::new(RefCell::new(Vec::new()));
        let (v, s) = (Rc::clone(&var), Rc::clone(&seen));
        let mut event_loop = oneloop_timers::virtual_time_loop();
        event_loop
            .run_until_complete(oneloop_shared::Scoped::new(Context::new(), async move {
                v.set(1);
                let (v1, s1) = (Rc::clone(&v), Rc::clone(&s));
                call_soon("copied", move || {
                    s1.borrow_mut().push(("copied-sees", v1.get()));
                    v1.set(10);
                });
                v.set(2);
                let given = Context::new();
                let (v2, s2) = (Rc::clone(&v), Rc::clone(&s));
                call_soon_in(&given, "given", move || {
                    s2.borrow_mut().push(("given-sees", v2.get()));
                    v2.set(20);
                });
                oneloop_core::yield_now().await;
                s.borrow_mut().push(("main-sees", v.get()));
                s.borrow_mut().push(("given-holds", given.run(|| v.get())));
            }))
            .expect("the loop runs");
        assert_eq!(
            *seen.borrow(),
            [
                ("copied-sees", Some(1)),
                ("given-sees", Some(0)),
                ("main-sees", Some(2)),
                ("given-holds", Some(20))
            ]
        );
    });
}

#[test]
fn to_thread_runs_in_a_copy_of_the_context_and_keeps_its_changes_on_the_worker() {
    watchdog_default(|| {
        let var = std::sync::Arc::new(TaskLocal::with_default("user", String::from("nobody")));
        let result = oneloop_offload::run(async move {
            let outer = Context::new();
            let v = std::sync::Arc::clone(&var);
            oneloop_shared::Scoped::new(outer, async move {
                v.set("alice".to_owned());
                let w = std::sync::Arc::clone(&v);
                let on_worker = to_thread(move || {
                    let seen = w.get();
                    w.set("changed-on-worker".to_owned());
                    (seen, w.get())
                })
                .await
                .expect("no panic");
                (on_worker, v.get())
            })
            .await
        })
        .expect("main finishes");
        assert_eq!(
            result,
            (
                (
                    Some("alice".to_owned()),
                    Some("changed-on-worker".to_owned())
                ),
                Some("alice".to_owned())
            )
        );
    });
}

#[test]
fn a_token_puts_the_old_value_back() {
    let var = TaskLocal::new("v");
    Context::new().run(|| {
        let first = var.set(1);
        let second = var.set(2);
        assert_eq!(var.get(), Some(2));
        var.reset(second);
        assert_eq!(var.get(), Some(1));
        var.reset(first);
        assert_eq!(var.get(), None);
    });
}

/// Whether `T` is `Send`, read at compile time: the inherent method exists only when
/// `T: Send` and wins over the trait's; otherwise the trait's answers.
struct SendProbe<T>(std::marker::PhantomData<T>);

trait NotSendAnswer {
    fn is_send(&self) -> bool {
        false
    }
}

impl<T> NotSendAnswer for SendProbe<T> {}

impl<T: Send> SendProbe<T> {
    fn is_send(&self) -> bool {
        true
    }
}

macro_rules! is_send {
    ($t:ty) => {
        SendProbe::<$t>(std::marker::PhantomData).is_send()
    };
}

#[test]
fn the_primitives_are_not_send_so_another_thread_cannot_have_one() {
    // The probe answers true for a type that is Send.
    assert!(is_send!(u8));
    assert!(is_send!(std::sync::Mutex<u8>));
    assert!(!is_send!(oneloop_shared::Lock));
    assert!(!is_send!(Event));
    assert!(!is_send!(Condition));
    assert!(!is_send!(Semaphore));
    assert!(!is_send!(BoundedSemaphore));
    assert!(!is_send!(Barrier));
    assert!(!is_send!(oneloop_shared::Queue<u8>));
    assert!(!is_send!(Context));
}

/// A cancel request that the task passes on to a task it awaits is not delivered to
/// the task itself: its lock waiter must stay live. Here the waiter's task selects
/// between the lock and a child that swallows the cancel; once the holder releases,
/// the waiter must be handed the lock (a waiter marked cancelled by the passed-on
/// request would never be woken, and the loop would stall with the lock free).
#[test]
fn a_cancel_passed_on_to_an_awaited_child_leaves_the_lock_waiter_live() {
    use oneloop_cancel::{Selected, select, spawn};
    use oneloop_shared::Lock;
    watchdog_default(|| {
        let outcome = run(async {
            let lock = Rc::new(Lock::new());
            let release = Rc::new(Event::new());
            lock.acquire().await?;
            let waiter = {
                let lock = Rc::clone(&lock);
                let release = Rc::clone(&release);
                spawn(async move {
                    // A child that swallows every cancel until it is told to end.
                    let child = spawn(async move {
                        while release.wait().await.is_err() {}
                        Ok(())
                    });
                    match select(lock.acquire(), child.join()).await {
                        Selected::First(acquired, _) => {
                            acquired?;
                            lock.release()?;
                            Ok("lock")
                        }
                        Selected::Second(_, _) => Ok("child"),
                    }
                })
            };
            bare_yield().await?;
            bare_yield().await?;
            // The request goes to the child, which takes it (and swallows it).
            assert!(waiter.cancel(None));
            lock.release()?;
            let got = waiter.join().await;
            release.set();
            got
        });
        assert_eq!(outcome, Ok("lock"));
    });
}

/// A job ordered by its priority alone: two jobs of one priority are equal to `Ord`.
#[derive(Debug, PartialEq, Eq)]
struct Job(u32, &'static str);

impl Ord for Job {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

impl PartialOrd for Job {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[test]
fn a_priority_queue_gives_the_smallest_first_and_equal_items_in_arrival_order() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Queue::priority(0);
            for job in [
                Job(2, "a"),
                Job(1, "b"),
                Job(2, "c"),
                Job(1, "d"),
                Job(2, "e"),
            ] {
                queue.put_nowait(job)?;
            }
            let mut out = Vec::new();
            while let Ok(Job(_, name)) = queue.get_nowait() {
                out.push(name);
            }
            Ok(out)
        });
        assert_eq!(result, Ok(vec!["b", "d", "a", "c", "e"]));
    });
}

/// asyncio's `PriorityQueue` is a heap (`heapq`): a put and a get each cost a logarithm
/// of the length. Kept sorted in a list instead, each put into the middle moves half
/// the items: 200,000 items of 64 bytes would move some 600 GB, which the hang detector
/// ends long before.
#[test]
fn a_priority_queue_of_200000_items_puts_and_gets_in_logarithmic_time() {
    watchdog_default(|| {
        const ITEMS: u64 = 200_000;
        const PADDING: [u64; 7] = [0; 7];
        let result = run(async {
            let queue = Queue::priority(0);
            // Small and large in turn: each new item falls in the middle of the rest.
            for n in 0..ITEMS / 2 {
                queue.put_nowait((n, PADDING))?;
                queue.put_nowait((ITEMS - 1 - n, PADDING))?;
            }
            let mut previous = None;
            let mut got = 0;
            while let Ok((item, _)) = queue.get_nowait() {
                assert!(previous < Some(item), "{previous:?} then {item}");
                previous = Some(item);
                got += 1;
            }
            Ok(got)
        });
        assert_eq!(result, Ok(ITEMS));
    });
}

// Attacks on the hand-offs: a waiter woken, passed over or moved, then cancelled,
// dropped or polled elsewhere. Each checks that what was handed out (the lock, a unit,
// an item, a place in a round) reaches someone.

/// Polls `future` once in the running task, and gives back whether it was ready: the
/// future then waits in its primitive's queue while the task awaits something else.
async fn poll_once<F: Future + Unpin>(future: &mut F) -> std::task::Poll<F::Output> {
    std::future::poll_fn(|cx| std::task::Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx)))
        .await
}

/// asyncio's barrier counts the parties of one round; a party cancelled before the
/// round filled leaves it, and the next round is counted afresh (`python3` run: a
/// round of 2 released by B while A is cancelled, then C and D pass the next round).
/// The cancelled party's leaving must not take a place from the next round, or C and D
/// wait for ever on a barrier of 2 with 2 waiting.
#[test]
fn a_barrier_party_cancelled_in_a_released_round_takes_no_place_in_the_next() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let barrier = Rc::new(Barrier::new(2));
            let party = |name: &'static str| {
                let (barrier, l) = (Rc::clone(&barrier), Rc::clone(&l));
                spawn_named(name, async move {
                    let index = barrier.wait().await?;
                    say(&l, format!("{name}-passed-{index}"));
                    Ok(())
                })
            };
            let a = party("a");
            bare_yield().await?;
            // c's first step is queued before a's cancelled one: c arrives while the
            // round drains, and waits until a has left.
            let c = party("c");
            a.cancel(None);
            let index = barrier.wait().await?;
            say(&l, format!("b-passed-{index}"));
            let d = party("d");
            assert!(a.join().await.is_err(), "a ends cancelled");
            c.join().await?;
            d.join().await?;
            say(&l, format!("waiting-{}", barrier.n_waiting()));
            Ok(())
        })
        .expect("every party passes");
        assert_eq!(
            texts(&log),
            // d comes after a left and before c, let in then, runs again: d is first
            // of the next round, and c, last, goes on at once (python3 3.11: c passes
            // with index 1 in turn 4, d with 0 in turn 5).
            ["b-passed-1", "c-passed-1", "d-passed-0", "waiting-0"]
        );
    });
}

/// A task cancelled while it awaits something that is no cancellation point (stage 5's
/// own `sleep`) reaches `Barrier::wait` with the request undelivered: the wait
/// delivers it at once. The party never waited, so it must not
/// count, or the next party passes a barrier of 2 alone (asyncio's `wait` takes the
/// count back in a `finally`: a `python3` run of a party that cancelled itself leaves
/// `n_waiting` at 0).
#[test]
fn a_party_whose_wait_delivers_a_cancel_at_once_is_not_counted() {
    watchdog_default(|| {
        let result = run(async {
            let barrier = Rc::new(Barrier::new(2));
            let b = Rc::clone(&barrier);
            let a = spawn_named("a", async move {
                oneloop_timers::sleep(Duration::from_secs(1)).await;
                b.wait().await
            });
            bare_yield().await?;
            a.cancel(None);
            let a_ended = a.join().await;
            let waiting = barrier.n_waiting();
            let b = Rc::clone(&barrier);
            let e = spawn_named("e", async move { b.wait().await });
            let mine = barrier.wait().await?;
            Ok((a_ended, waiting, mine, e.join().await))
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), 0, 0, Ok(1))));
    });
}

/// A future of one of the primitives, boxed so that one attack fits them all.
type Boxed<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + 'a>>;

/// Polls `future` once outside any loop, and expects it ready: a free lock is taken so.
fn at_once<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(value) => value,
        std::task::Poll::Pending => panic!("expected to be ready at once"),
    }
}

/// Task a starts `wait` (one poll: it queues), then awaits a sleep. Main cancels a and,
/// in the same step, calls `give`. The request is delivered at the sleep, not at the
/// wait, so a goes on waiting; `give` was meant for it and must reach it. asyncio
/// cancels only the future a task awaits (the sleep's), and its waiter future is
/// served: a `python3` run drives each primitive's coroutine by hand the same way, and
/// every one of them is served.
fn served_though_its_cancel_went_elsewhere<P: 'static, T: 'static>(
    primitive: P,
    wait: impl for<'a> Fn(&'a P) -> Boxed<'a, T> + 'static,
    give: impl FnOnce(&P) + 'static,
) -> (Result<(), Error>, T) {
    run(async move {
        let primitive = Rc::new(primitive);
        let p = Rc::clone(&primitive);
        let a = spawn_named("a", async move {
            let mut waiting = wait(&p);
            assert!(poll_once(&mut waiting).await.is_pending(), "a must wait");
            let slept = oneloop_cancel::sleep(Duration::from_secs(10)).await;
            let got = waiting.await;
            Ok((slept, got))
        });
        bare_yield().await?;
        assert!(a.cancel(None));
        give(&primitive);
        a.join().await
    })
    .expect("a is served")
}

#[test]
fn a_lock_waiter_whose_cancel_is_taken_at_another_await_is_still_handed_the_lock() {
    watchdog_default(|| {
        let lock = oneloop_shared::Lock::new();
        at_once(lock.acquire()).expect("a free lock");
        let got = served_though_its_cancel_went_elsewhere(
            lock,
            |lock| Box::pin(lock.acquire()),
            |lock| lock.release().expect("held"),
        );
        assert_eq!(got, (Err(Error::Cancelled(None)), Ok(())));
    });
}

#[test]
fn a_semaphore_waiter_whose_cancel_is_taken_at_another_await_is_still_handed_the_unit() {
    watchdog_default(|| {
        let got = served_though_its_cancel_went_elsewhere(
            Semaphore::new(0),
            |sem| Box::pin(async move { sem.acquire().await.map(|()| sem.value()) }),
            Semaphore::release,
        );
        assert_eq!(got, (Err(Error::Cancelled(None)), Ok(0)));
    });
}

/// Task a queues (one poll), then awaits a sleep. Main cancels a and, in the same step,
/// calls `give`: the wake passes a over, since it looks cancelled, and the request is
/// delivered at the sleep. a is live again, so b, which comes next, queues behind it.
/// Then a drops its wait unserved: what `give` left free must go on to b, or b waits for
/// ever.
fn left_unserved_after_its_cancel_went_elsewhere<P: 'static, T: 'static>(
    primitive: P,
    wait: impl for<'a> Fn(&'a P) -> Boxed<'a, T> + 'static,
    give: impl FnOnce(&P) + 'static,
) -> T {
    run(async move {
        let primitive = Rc::new(primitive);
        let wait = Rc::new(wait);
        let (p, w) = (Rc::clone(&primitive), Rc::clone(&wait));
        let a = spawn_named("a", async move {
            let mut waiting = w(&p);
            assert!(poll_once(&mut waiting).await.is_pending(), "a must wait");
            let slept = oneloop_cancel::sleep(Duration::from_secs(10)).await;
            assert_eq!(
                slept,
                Err(Error::Cancelled(None)),
                "the sleep takes the cancel"
            );
            // b queues behind a meanwhile.
            bare_yield().await?;
            drop(waiting);
            Ok(())
        });
        bare_yield().await?;
        assert!(a.cancel(None));
        give(&primitive);
        let (p, w) = (Rc::clone(&primitive), Rc::clone(&wait));
        let b = spawn_named("b", async move { Ok(w(&p).await) });
        a.join().await?;
        b.join().await
    })
    .expect("b is served")
}

#[test]
fn a_semaphore_waiter_passed_over_then_dropped_passes_the_free_unit_on() {
    watchdog_default(|| {
        let got = left_unserved_after_its_cancel_went_elsewhere(
            Semaphore::new(0),
            |sem| Box::pin(async move { sem.acquire().await.map(|()| sem.value()) }),
            Semaphore::release,
        );
        assert_eq!(got, Ok(0));
    });
}

#[test]
fn a_getter_whose_cancel_is_taken_at_another_await_still_gets_the_item() {
    watchdog_default(|| {
        let got = served_though_its_cancel_went_elsewhere(
            Queue::new(0),
            |queue| Box::pin(queue.get()),
            |queue| queue.put_nowait(7).expect("room"),
        );
        assert_eq!(got, (Err(Error::Cancelled(None)), Ok(7)));
    });
}

#[test]
fn a_putter_whose_cancel_is_taken_at_another_await_still_puts_its_item() {
    watchdog_default(|| {
        let queue = Queue::new(1);
        queue.put_nowait(1).expect("room");
        let got = served_though_its_cancel_went_elsewhere(
            queue,
            |queue| {
                Box::pin(async move {
                    queue.put(2).await?;
                    queue.get_nowait()
                })
            },
            |queue| assert_eq!(queue.get_nowait(), Ok(1)),
        );
        assert_eq!(got, (Err(Error::Cancelled(None)), Ok(2)));
    });
}

#[test]
fn an_event_waiter_whose_cancel_is_taken_at_another_await_is_still_woken() {
    watchdog_default(|| {
        let got = served_though_its_cancel_went_elsewhere(
            Event::new(),
            |event| Box::pin(event.wait()),
            Event::set,
        );
        assert_eq!(got, (Err(Error::Cancelled(None)), Ok(())));
    });
}

#[test]
fn a_condition_waiter_whose_cancel_is_taken_at_another_await_is_still_notified() {
    watchdog_default(|| {
        let got = served_though_its_cancel_went_elsewhere(
            Condition::new(),
            |cond| {
                Box::pin(async move {
                    cond.acquire().await?;
                    cond.wait().await?;
                    cond.release()
                })
            },
            |cond| {
                at_once(cond.acquire()).expect("the waiter gave the lock up");
                cond.notify(1).expect("held");
                cond.release().expect("held");
            },
        );
        assert_eq!(got, (Err(Error::Cancelled(None)), Ok(())));
    });
}

/// An acquire queued by task a, then handed to task b, which awaits it: the waiter is
/// b's now. A cancel of a (delivered at a's own sleep) must not make the release pass
/// it over, or b waits for ever with the lock free. (Rust lets a future move between
/// tasks; an asyncio coroutine runs in one task, so this has no asyncio counterpart:
/// the waiter follows the task that polls it, as asyncio's follows the task that
/// awaits it.)
#[test]
fn a_lock_waiter_moved_to_another_task_is_judged_by_the_task_that_polls_it() {
    use oneloop_shared::{Acquire, Lock};
    watchdog_default(|| {
        // The acquire borrows the lock and moves between tasks: the lock lives for
        // the whole test.
        let lock: &'static Lock = Box::leak(Box::new(Lock::new()));
        let result = run(async move {
            lock.acquire().await?;
            let handed: Rc<RefCell<Option<Acquire<'static>>>> = Rc::default();
            let h = Rc::clone(&handed);
            let a = spawn_named("a", async move {
                let mut acquire = lock.acquire();
                assert!(poll_once(&mut acquire).await.is_pending(), "a queues");
                *h.borrow_mut() = Some(acquire);
                oneloop_cancel::sleep(Duration::from_secs(10)).await
            });
            bare_yield().await?;
            let b = spawn_named("b", async move {
                let acquire = handed.borrow_mut().take().expect("a handed it over");
                acquire.await?;
                lock.release()?;
                Ok("b-acquired")
            });
            bare_yield().await?;
            assert!(a.cancel(None));
            lock.release()?;
            Ok((a.join().await, b.join().await))
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), Ok("b-acquired"))));
    });
}

/// A timeout around an acquire that fires just before the release or just after it:
/// the waiter ends timed out and the next waiter gets the lock (a `python3` run, the
/// deadline due with the releaser's sleep: a times out, b acquires, the lock ends
/// free).
#[test]
fn a_lock_waiter_timed_out_in_the_turn_of_its_wake_passes_the_lock_on() {
    use oneloop_shared::Lock;
    // `wake_first`: the release runs in the turn the deadline is due, before the
    // timeout's callback (the waiter is woken, then cancelled); otherwise the timeout
    // cancels first and the release, in the next turn before a runs, passes the
    // waiter over.
    fn attack(wake_first: bool) -> Result<Vec<String>, Error> {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let lock = Rc::new(Lock::new());
            lock.acquire().await?;
            let (lk, la) = (Rc::clone(&lock), Rc::clone(&l));
            let a = spawn_named("a", async move {
                let got = oneloop_cancel::timeout(Duration::from_secs(1), lk.acquire()).await;
                say(&la, format!("a-{got:?}"));
                Ok(())
            });
            let (lk, lb) = (Rc::clone(&lock), Rc::clone(&l));
            let b = spawn_named("b", async move {
                lk.acquire().await?;
                say(&lb, "b-acquired");
                lk.release()
            });
            if wake_first {
                // a and b queue; then the clock reaches a's deadline while this task
                // holds the thread, and the yield queues its step ahead of the due
                // timer's callback.
                bare_yield().await?;
                oneloop_timers::block_for(Duration::from_secs(1));
                oneloop_cancel::yield_now().await?;
            } else {
                // This sleep is scheduled before a's deadline, for the same time: its
                // wake is queued first, then the timeout's cancel, and this task
                // releases before a runs.
                oneloop_cancel::sleep(Duration::from_secs(1)).await?;
            }
            lock.release()?;
            let requests = if wake_first { 0 } else { 1 };
            assert_eq!(
                a.cancelling(),
                requests,
                "the timeout's cancel came after: {wake_first}"
            );
            a.join().await?;
            b.join().await?;
            say(&l, format!("locked-{}", lock.locked()));
            Ok(())
        })?;
        Ok(texts(&log))
    }
    watchdog_default(|| {
        for wake_first in [false, true] {
            assert_eq!(
                attack(wake_first),
                Ok(vec![
                    "a-Err(TimedOut)".to_owned(),
                    "b-acquired".to_owned(),
                    "locked-false".to_owned()
                ]),
                "wake first: {wake_first}"
            );
        }
    });
}

/// A select between two locks, both released in one step: the first wins and the
/// loser, dropped just after its wake, passes its lock on to the next waiter. (asyncio
/// has no drop; its counterpart, a woken waiter cancelled, passes the lock on as
/// well: `stage10-lock-cancel-woken`.)
#[test]
fn a_select_that_drops_a_lock_just_handed_to_it_passes_that_lock_on() {
    use oneloop_cancel::{LoserFate, Selected, select};
    use oneloop_shared::Lock;
    watchdog_default(|| {
        let result = run(async {
            let (one, two) = (Rc::new(Lock::new()), Rc::new(Lock::new()));
            one.acquire().await?;
            two.acquire().await?;
            let (o, t) = (Rc::clone(&one), Rc::clone(&two));
            let chooser = spawn_named("chooser", async move {
                match select(o.acquire(), t.acquire()).await {
                    Selected::First(got, LoserFate::Dropped) => got.map(|()| "one"),
                    other => panic!("the first is polled first: {other:?}"),
                }
            });
            bare_yield().await?;
            let t = Rc::clone(&two);
            let next = spawn_named("next", async move {
                t.acquire().await?;
                t.release()?;
                Ok("two")
            });
            bare_yield().await?;
            one.release()?;
            two.release()?;
            Ok((chooser.join().await, next.join().await, one.locked()))
        });
        assert_eq!(result, Ok((Ok("one"), Ok("two"), true)));
    });
}

/// A task group whose child fails while a sibling was just handed the lock: the group
/// cancels the sibling after its wake, and the sibling passes the lock on to a waiter
/// outside the group (a `python3` run with `TaskGroup`: s1 cancelled, w acquires).
#[test]
fn a_group_cancelling_a_child_just_handed_the_lock_passes_it_on() {
    use oneloop_cancel::task_group;
    use oneloop_shared::Lock;
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let lock = Rc::new(Lock::new());
            let failing = Rc::new(Event::new());
            lock.acquire().await?;
            let w_task = Rc::new(RefCell::new(None));
            let grouped = task_group(|tg| {
                let (lock, l, failing) = (Rc::clone(&lock), Rc::clone(&l), Rc::clone(&failing));
                let w_task = Rc::clone(&w_task);
                async move {
                    let (lk, ls) = (Rc::clone(&lock), Rc::clone(&l));
                    let s1 = tg.spawn("s1", async move {
                        let got = lk.acquire().await;
                        say(&ls, format!("s1-{got:?}"));
                        got?;
                        lk.release()
                    })?;
                    let f = Rc::clone(&failing);
                    tg.spawn("s2", async move {
                        f.wait().await?;
                        Err::<(), _>(Error::Failed("boom".into()))
                    })?;
                    bare_yield().await?;
                    let (lk, lw) = (Rc::clone(&lock), Rc::clone(&l));
                    *w_task.borrow_mut() = Some(spawn_named("w", async move {
                        lk.acquire().await?;
                        say(&lw, "w-acquired");
                        lk.release()
                    }));
                    bare_yield().await?;
                    // s2 fails in the turn of the release, before it; the group's
                    // cancel reaches s1 after the release woke it.
                    failing.set();
                    oneloop_cancel::yield_now().await?;
                    lock.release()?;
                    assert_eq!(s1.cancelling(), 0, "the group cancels s1 after its wake");
                    Ok(())
                }
            })
            .await;
            let w = w_task.borrow_mut().take().expect("w was spawned");
            w.join().await?;
            say(&l, format!("group-{grouped:?}"));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            texts(&log),
            [
                "s1-Err(Cancelled(None))",
                "w-acquired",
                "group-Err(Group([Failed(\"boom\")]))"
            ]
        );
    });
}

/// Two releases with the middle waiter of three cancelled: the first and the last get
/// a unit each, in arrival order, and the value ends at 0 (a `python3` run: a and c
/// in, value 0, b cancelled).
#[test]
fn two_releases_past_a_cancelled_semaphore_waiter_let_the_two_live_ones_in() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        let result = run(async move {
            let sem = Rc::new(Semaphore::new(0));
            let tasks: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| {
                    let (sem, l) = (Rc::clone(&sem), Rc::clone(&l));
                    spawn_named(name, async move {
                        sem.acquire().await?;
                        say(&l, name);
                        Ok(())
                    })
                })
                .collect();
            bare_yield().await?;
            tasks[1].cancel(None);
            sem.release();
            sem.release();
            let mut ends = Vec::new();
            for task in &tasks {
                ends.push(task.join().await.is_ok());
            }
            Ok((ends, sem.value()))
        });
        assert_eq!(result, Ok((vec![true, false, true], 0)));
        assert_eq!(texts(&log), ["a", "c"]);
    });
}

/// Set, clear and set again in one step: the waiter is woken once, its wait returns
/// `Ok` though the event was cleared in between, and the queue ends empty (a `python3`
/// run: True, woken once, no waiter left).
#[test]
fn an_event_set_cleared_and_set_in_one_step_wakes_its_waiter_once() {
    watchdog_default(|| {
        let result = run(async {
            let event = Rc::new(Event::new());
            let woken = Rc::new(Cell::new(0));
            let (e, w) = (Rc::clone(&event), Rc::clone(&woken));
            let waiter = spawn_named("waiter", async move {
                let waited = e.wait().await;
                w.set(w.get() + 1);
                waited
            });
            bare_yield().await?;
            event.set();
            event.clear();
            event.set();
            let waited = waiter.join().await;
            Ok((waited, woken.get(), format!("{event:?}")))
        });
        assert_eq!(
            result,
            Ok((Ok(()), 1, "Event { set: true, waiters: 0 }".to_owned()))
        );
    });
}

/// `notify(1)` with the first waiter cancelled skips it and wakes the second (a
/// `python3` run: a cancelled, b notified).
#[test]
fn a_notify_of_one_skips_a_cancelled_waiter_and_wakes_the_next() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let cond = Rc::new(Condition::new());
            let tasks: Vec<_> = ["a", "b"]
                .into_iter()
                .map(|name| {
                    let (cond, l) = (Rc::clone(&cond), Rc::clone(&l));
                    spawn_named(name, async move {
                        cond.acquire().await?;
                        let waited = cond.wait().await;
                        say(&l, format!("{name}-{waited:?}"));
                        cond.release()
                    })
                })
                .collect();
            bare_yield().await?;
            tasks[0].cancel(None);
            cond.acquire().await?;
            cond.notify(1)?;
            cond.release()?;
            for task in &tasks {
                task.join().await?;
            }
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(texts(&log), ["a-Err(Cancelled(None))", "b-Ok(())"]);
    });
}

/// A get cancelled while it waits changes no count: the item put after it is
/// unfinished until its `task_done`, and `join` waits for that (a `python3` run: get
/// cancelled, join pending with 1 unfinished, joined at 0).
#[test]
fn a_cancelled_get_leaves_the_queue_counts_alone() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Rc::new(Queue::new(0));
            let q = Rc::clone(&queue);
            let getter = spawn_named("getter", async move { Ok(q.get().await?) });
            bare_yield().await?;
            getter.cancel(None);
            let got = getter.join().await;
            queue.put_nowait(1)?;
            let q = Rc::clone(&queue);
            let joiner = spawn_named("joiner", async move { q.join().await });
            bare_yield().await?;
            let pending = !joiner.is_done();
            let item = queue.get().await?;
            queue.task_done()?;
            joiner.join().await?;
            Ok((got, pending, item, queue.task_done().is_err()))
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), true, 1, true)));
    });
}

/// `Lock::with` dropped while its body runs (a select's loser here; an abort is the
/// same) must release the lock, as asyncio's `async with lock:` does when a
/// `wait_for` cancels its body (a `python3` run: timed out, the lock free, the next
/// acquire taken). Otherwise the lock stays held by no one, and every later acquire
/// waits for ever.
#[test]
fn a_lock_with_dropped_while_its_body_runs_releases_the_lock() {
    use oneloop_cancel::{LoserFate, Selected, select};
    use oneloop_shared::Lock;
    watchdog_default(|| {
        let result = run(async {
            let lock = Rc::new(Lock::new());
            let held = lock.with(oneloop_cancel::sleep(Duration::from_secs(10)));
            let outcome = match select(held, oneloop_cancel::sleep(Duration::from_secs(1))).await {
                Selected::Second(slept, LoserFate::Dropped) => slept.map(|()| "body dropped"),
                other => panic!("the shorter sleep wins: {other:?}"),
            };
            let locked = lock.locked();
            let l = Rc::clone(&lock);
            let next = spawn_named("next", async move {
                l.acquire().await?;
                l.release()
            });
            Ok((outcome, locked, next.join().await))
        });
        assert_eq!(result, Ok((Ok("body dropped"), false, Ok(()))));
    });
}

/// A waiter cancelled before the set is woken by it too, and still sees its cancel
/// first; the other waiter returns `Ok` (a `python3` run: a cancelled, b set).
#[test]
fn an_event_waiter_cancelled_before_the_set_still_ends_cancelled() {
    watchdog_default(|| {
        let result = run(async {
            let event = Rc::new(Event::new());
            let waiters: Vec<_> = ["a", "b"]
                .into_iter()
                .map(|name| {
                    let event = Rc::clone(&event);
                    spawn_named(name, async move { event.wait().await })
                })
                .collect();
            bare_yield().await?;
            waiters[0].cancel(None);
            event.set();
            Ok((waiters[0].join().await, waiters[1].join().await))
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), Ok(()))));
    });
}

/// A body that panics inside `Lock::with` frees the lock for the next waiter, as
/// `async with lock:` releases it when its body raises (a `python3` run: b gets the
/// lock after a's body raised). The panic ends task a; the loop goes on.
#[test]
fn a_lock_with_whose_body_panics_hands_the_lock_to_the_next_waiter() {
    use oneloop_shared::Lock;
    watchdog_default(|| {
        let result = run(async {
            let lock = Rc::new(Lock::new());
            let l = Rc::clone(&lock);
            let a = spawn_named("a", async move {
                l.with(async {
                    bare_yield().await.ok();
                    panic!("a's body fails");
                })
                .await
            });
            bare_yield().await?;
            let l = Rc::clone(&lock);
            let b = spawn_named("b", async move {
                l.acquire().await?;
                l.release()
            });
            let a_ended = a.join().await.is_err();
            Ok((a_ended, b.join().await))
        });
        assert_eq!(result, Ok((true, Ok(()))));
    });
}
