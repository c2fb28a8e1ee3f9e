//! Exercise 2: the queue's bounded `put`/`get` pair.

use std::rc::Rc;

use crate::common::{
    Log, bare_yield, first_poll_elsewhere, pending_after_one_poll, plain_yield, run,
};
use ex10_shared::{Queue, QueueError, TASK_DONE_TOO_OFTEN};
use oneloop_cancel::{Error, Task, spawn_named};
use oneloop_testkit::watchdog_default;

#[test]
fn ex2_put_nowait_on_a_full_queue_and_get_nowait_on_an_empty_one_fail() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Queue::new(1);
            let empty = queue.get_nowait();
            queue.put_nowait('a')?;
            let full = queue.put_nowait('b');
            let got = queue.get_nowait()?;
            Ok((empty, full, got, queue.len()))
        });
        assert_eq!(
            result,
            Ok((Err(QueueError::Empty), Err(QueueError::Full), 'a', 0))
        );
    });
}

#[test]
fn ex2_a_bounded_put_suspends_until_a_get_makes_room() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            l.say("main-starts");
            let queue = Rc::new(Queue::new(1));
            let (q, pl) = (Rc::clone(&queue), l.clone());
            let producer = spawn_named("producer", async move {
                for item in 0..3 {
                    q.put(item).await?;
                    assert!(q.len() <= 1, "never more than maxsize");
                    pl.say(format!("put-{item}"));
                }
                Ok(())
            });
            let (q, cl) = (Rc::clone(&queue), l.clone());
            let consumer = spawn_named("consumer", async move {
                for _ in 0..3 {
                    let item = q.get().await?;
                    cl.say(format!("got-{item}"));
                }
                Ok(())
            });
            producer.join().await?;
            consumer.join().await
        })
        .expect("main ends well");
        // CPython 3.11's turns for the same program (tests/asyncio/queue_maxsize_one.py),
        // counted from main's first turn, turn 1.
        let start = log.turn_of("main-starts");
        let seen: Vec<(u64, String)> = log.lines()[1..]
            .iter()
            .map(|(turn, what)| (turn - start + 1, what.clone()))
            .collect();
        let expected: Vec<(u64, String)> = [
            (2, "put-0"),
            (2, "got-0"),
            (3, "put-1"),
            (4, "got-1"),
            (5, "put-2"),
            (6, "got-2"),
        ]
        .into_iter()
        .map(|(turn, what)| (turn, what.to_owned()))
        .collect();
        assert_eq!(seen, expected);
    });
}

#[test]
fn ex2_a_get_on_an_empty_queue_resumes_in_the_turn_after_the_put() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(0));
            let getter = getter(&queue, &l, "getter");
            bare_yield().await?;
            l.say("put");
            queue.put_nowait("x")?;
            getter.join().await
        })
        .expect("main ends well");
        assert_eq!(
            log.turn_of("getter-got-x"),
            log.turn_of("put") + 1,
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex2_getters_are_served_first_in_first_out() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(0));
            let getters: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| {
                    let (q, gl) = (Rc::clone(&queue), l.clone());
                    spawn_named(name, async move {
                        let item = q.get().await?;
                        gl.say(format!("{name}-{item}"));
                        Ok(())
                    })
                })
                .collect();
            bare_yield().await?;
            for item in 1..=3 {
                queue.put_nowait(item)?;
            }
            for getter in &getters {
                getter.join().await?;
            }
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(log.texts(), ["a-1", "b-2", "c-3"]);
    });
}

/// A task named `name` that gets one item from `queue` and logs `name-got-item`.
fn getter(queue: &Rc<Queue<&'static str>>, log: &Log, name: &'static str) -> Task<()> {
    let (queue, log) = (Rc::clone(queue), log.clone());
    spawn_named(name, async move {
        let item = queue.get().await?;
        log.say(format!("{name}-got-{item}"));
        Ok(())
    })
}

/// A task named `name` that puts its own name into `queue` and logs `name-put`.
fn putter(queue: &Rc<Queue<&'static str>>, log: &Log, name: &'static str) -> Task<()> {
    let (queue, log) = (Rc::clone(queue), log.clone());
    spawn_named(name, async move {
        queue.put(name).await?;
        log.say(format!("{name}-put"));
        Ok(())
    })
}

/// Polls `future`, and after its first `Pending` wakes its own task once: the next
/// poll of `future` is then a spurious one, with nothing handed to it.
async fn nudged<F: Future>(future: F) -> F::Output {
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

#[test]
fn ex2_a_getter_polled_without_a_wake_keeps_its_place() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(0));
            let (q, gl) = (Rc::clone(&queue), l.clone());
            let a = spawn_named("a", async move {
                let item = nudged(q.get()).await?;
                gl.say(format!("a-{item}"));
                Ok(())
            });
            let (q, gl) = (Rc::clone(&queue), l.clone());
            let b = spawn_named("b", async move {
                let item = q.get().await?;
                gl.say(format!("b-{item}"));
                Ok(())
            });
            // a queues first, then is polled once more with nothing for it.
            bare_yield().await?;
            bare_yield().await?;
            queue.put_nowait(1)?;
            queue.put_nowait(2)?;
            a.join().await?;
            b.join().await?;
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["a-1", "b-2"],
            "a poll that was not woken must keep the waiter where it is (first in line), \
             not leave and queue again at the back: {:?}",
            log.lines()
        );
    });
}

#[test]
fn ex2_a_woken_putter_that_finds_the_queue_full_again_waits_again() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(1));
            queue.put_nowait(0)?;
            let (q, pl) = (Rc::clone(&queue), l.clone());
            let putter = spawn_named("putter", async move {
                q.put(2).await?;
                pl.say(format!("put-2-len-{}", q.len()));
                Ok(())
            });
            bare_yield().await?;
            // The get wakes the putter; a newcomer fills the slot before it runs.
            assert_eq!(queue.get_nowait()?, 0);
            queue.put_nowait(1)?;
            bare_yield().await?;
            l.say(format!("len-{}", queue.len()));
            assert_eq!(queue.get_nowait()?, 1);
            putter.join().await?;
            assert_eq!(queue.get_nowait()?, 2);
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(log.texts(), ["len-1", "put-2-len-1"], "{:?}", log.lines());
    });
}

#[test]
fn ex2_a_getter_cancelled_after_its_wake_passes_the_item_on() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(0));
            let (a, b) = (getter(&queue, &l, "a"), getter(&queue, &l, "b"));
            bare_yield().await?;
            queue.put_nowait("x")?;
            // a was woken for "x"; cancelled before it runs, it must wake b.
            a.cancel(None);
            b.join().await?;
            let a_result = a.join().await;
            l.say(format!("a-{a_result:?}-len-{}", queue.len()));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["b-got-x", "a-Err(Cancelled(None))-len-0"],
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex2_a_putter_cancelled_after_its_wake_passes_the_room_on() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(1));
            queue.put_nowait("first")?;
            let (a, b) = (putter(&queue, &l, "a"), putter(&queue, &l, "b"));
            bare_yield().await?;
            assert_eq!(queue.get_nowait()?, "first");
            a.cancel(None);
            b.join().await?;
            assert!(a.join().await.is_err(), "a ends cancelled");
            l.say(format!("holds-{}", queue.get_nowait()?));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(log.texts(), ["b-put", "holds-b"], "{:?}", log.lines());
    });
}

#[test]
fn ex2_a_getter_cancelled_while_waiting_takes_nothing() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(0));
            let (q, gl) = (Rc::clone(&queue), l.clone());
            let a = spawn_named("a", async move {
                let item: &str = q.get().await?;
                gl.say(format!("a-got-{item}"));
                Ok(())
            });
            bare_yield().await?;
            a.cancel(None);
            bare_yield().await?;
            queue.put_nowait("x")?;
            assert!(a.join().await.is_err(), "a ends cancelled");
            l.say(format!("left-{}", queue.get_nowait()?));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(log.texts(), ["left-x"], "{:?}", log.lines());
    });
}

#[test]
fn ex2_join_returns_once_every_item_is_marked_done() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        let result = run(async move {
            let queue = Rc::new(Queue::new(0));
            queue.put_nowait("x")?;
            queue.put_nowait("y")?;
            let (q, wl) = (Rc::clone(&queue), l.clone());
            let worker = spawn_named("worker", async move {
                for _ in 0..2 {
                    let item = q.get().await?;
                    bare_yield().await?;
                    wl.say(format!("done-{item}"));
                    q.task_done()?;
                }
                Ok(())
            });
            queue.join().await?;
            l.say("joined");
            let too_often = queue.task_done();
            worker.join().await?;
            Ok(too_often)
        });
        assert_eq!(result, Ok(Err(Error::Misuse(TASK_DONE_TOO_OFTEN))));
        assert_eq!(log.texts(), ["done-x", "done-y", "joined"]);
        assert_eq!(log.turn_of("joined"), log.turn_of("done-y") + 1);
    });
}

#[test]
fn ex2_lifo_and_priority_queues_give_their_own_order() {
    watchdog_default(|| {
        let result = run(async {
            let lifo = Queue::lifo(0);
            let priority = Queue::priority(0);
            for item in [3, 1, 2] {
                lifo.put(item).await?;
                priority.put(item).await?;
            }
            let mut out = Vec::new();
            for _ in 0..3 {
                out.push((lifo.get().await?, priority.get().await?));
            }
            Ok(out)
        });
        assert_eq!(result, Ok(vec![(2, 1), (1, 2), (3, 3)]));
    });
}

#[test]
fn ex2_after_shutdown_put_fails_and_get_drains_then_fails() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Rc::new(Queue::new(0));
            let q = Rc::clone(&queue);
            let waiting = spawn_named("waiting", async move { Ok(q.get().await) });
            bare_yield().await?;
            queue.put_nowait(1)?;
            queue.put_nowait(2)?;
            queue.shutdown(false);
            let put = (queue.put(3).await, queue.put_nowait(4));
            let first = waiting.join().await?;
            let second = queue.get().await;
            let third = queue.get().await;
            Ok((put, first, second, third))
        });
        assert_eq!(
            result,
            Ok((
                (Err(QueueError::ShutDown), Err(QueueError::ShutDown)),
                Ok(1),
                Ok(2),
                Err(QueueError::ShutDown)
            ))
        );
    });
}

#[test]
fn ex2_an_immediate_shutdown_drops_the_items_and_releases_join() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Rc::new(Queue::new(0));
            queue.put_nowait('a')?;
            queue.put_nowait('b')?;
            let q = Rc::clone(&queue);
            let joiner = spawn_named("joiner", async move { q.join().await });
            bare_yield().await?;
            queue.shutdown(true);
            joiner.join().await?;
            Ok((queue.len(), queue.get_nowait()))
        });
        assert_eq!(result, Ok((0, Err(QueueError::ShutDown))));
    });
}

/// The wrong mechanism "a put wakes every getter": one item wakes one getter. The
/// others are not stepped at all (a getter woken for nothing would run, find the
/// queue empty and queue again, a step wasted for each).
#[test]
fn ex2_a_put_wakes_one_getter_not_all() {
    watchdog_default(|| {
        let steps = run(async {
            let queue = Rc::new(Queue::new(0));
            let getters: Vec<_> = ["a", "b", "c"]
                .into_iter()
                .map(|name| {
                    let q = Rc::clone(&queue);
                    spawn_named(name, async move { q.get().await.map_err(Error::from) })
                })
                .collect();
            // All three wait.
            bare_yield().await?;
            let before: Vec<u64> = getters.iter().map(|t| t.task_ref().steps()).collect();
            queue.put_nowait(1)?;
            bare_yield().await?;
            bare_yield().await?;
            let after: Vec<u64> = getters.iter().map(|t| t.task_ref().steps()).collect();
            queue.put_nowait(2)?;
            queue.put_nowait(3)?;
            let mut got = Vec::new();
            for getter in &getters {
                got.push(getter.join().await?);
            }
            Ok((before, after, got))
        })
        .expect("main ends well");
        let (before, after, got) = steps;
        assert_eq!(got, [1, 2, 3], "served first in, first out");
        assert_eq!(
            (
                after[0] - before[0],
                after[1] - before[1],
                after[2] - before[2]
            ),
            (1, 0, 0),
            "one put steps one getter (steps before {before:?}, after {after:?})"
        );
    });
}

/// The wrong mechanism "keep the waker of the first poll": a getter and a putter
/// polled again by another waker must be woken through the latest one, or the put
/// (or the get) wakes a waker nobody listens to and the loop stalls.
#[test]
fn ex2_a_getter_and_a_putter_polled_by_another_waker_are_woken_through_the_latest() {
    watchdog_default(|| {
        let got = run(async {
            let queue = Rc::new(Queue::new(1));
            let q = Rc::clone(&queue);
            let getter = spawn_named("getter", async move {
                first_poll_elsewhere(q.get()).await.map_err(Error::from)
            });
            bare_yield().await?;
            bare_yield().await?;
            queue.put_nowait(1)?;
            let first = getter.join().await?;
            queue.put_nowait(2)?;
            let q = Rc::clone(&queue);
            let putter = spawn_named("putter", async move {
                first_poll_elsewhere(q.put(3)).await.map_err(Error::from)
            });
            bare_yield().await?;
            bare_yield().await?;
            let second = queue.get_nowait()?;
            putter.join().await?;
            Ok((first, second, queue.get_nowait()?))
        });
        assert_eq!(got, Ok((1, 2, 3)));
    });
}

#[test]
fn ex2_a_getter_whose_cancel_is_taken_at_another_await_still_gets_the_item() {
    watchdog_default(|| {
        // a waits to get, then awaits a sleep and is cancelled there. The put's wake
        // skips a's waiter (it looks cancelled) and marks it passed over; back at its
        // get with no cancel left, a must look again and take the item.
        let result = run(async {
            let queue = Rc::new(Queue::new(0));
            let shared = Rc::clone(&queue);
            let a = spawn_named("a", async move {
                let mut get = shared.get();
                let parked = pending_after_one_poll(&mut get).await;
                assert!(parked, "a waits");
                let slept = oneloop_cancel::sleep(std::time::Duration::from_secs(10)).await;
                Ok((slept, get.await?))
            });
            bare_yield().await?;
            assert!(a.cancel(None));
            queue.put_nowait(7)?;
            a.join().await
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), 7)));
    });
}

#[test]
fn ex2_a_putter_whose_cancel_is_taken_at_another_await_still_puts_its_item() {
    watchdog_default(|| {
        // a waits to put into a full queue, then awaits a sleep and is cancelled there.
        // The get's wake skips a's waiter (it looks cancelled) and marks it passed over;
        // back at its put with no cancel left, a must look again and put its item.
        let result = run(async {
            let queue = Rc::new(Queue::new(1));
            queue.put_nowait(1)?;
            let shared = Rc::clone(&queue);
            let a = spawn_named("a", async move {
                let mut put = shared.put(2);
                let parked = pending_after_one_poll(&mut put).await;
                assert!(parked, "a waits");
                let slept = oneloop_cancel::sleep(std::time::Duration::from_secs(10)).await;
                put.await?;
                Ok((slept, shared.get_nowait()?))
            });
            bare_yield().await?;
            assert!(a.cancel(None));
            assert_eq!(queue.get_nowait()?, 1);
            a.join().await
        });
        assert_eq!(result, Ok((Err(Error::Cancelled(None)), 2)));
    });
}

#[test]
fn ex2_a_getter_or_a_putter_cancelled_while_waiting_leaves_the_line_to_the_next() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(1));
            let (a, b) = (getter(&queue, &l, "a"), getter(&queue, &l, "b"));
            bare_yield().await?;
            // a leaves the line before anything is put: the item is b's.
            a.cancel(None);
            assert!(a.join().await.is_err(), "a ends cancelled");
            queue.put_nowait("x")?;
            b.join().await?;
            // The same for putters, on the queue full again.
            queue.put_nowait("y")?;
            let (c, d) = (putter(&queue, &l, "c"), putter(&queue, &l, "d"));
            bare_yield().await?;
            c.cancel(None);
            assert!(c.join().await.is_err(), "c ends cancelled");
            assert_eq!(queue.get_nowait()?, "y");
            d.join().await?;
            l.say(format!("holds-{}", queue.get_nowait()?));
            Ok(())
        })
        .expect(
            "main ends well (a stall here means a get or a put woke the cancelled \
             waiter, left first in the line, instead of the one behind it)",
        );
        assert_eq!(
            log.texts(),
            ["b-got-x", "d-put", "holds-d"],
            "{:?}",
            log.lines()
        );
    });
}

#[test]
fn ex2_a_woken_getter_that_finds_the_queue_empty_again_waits_again() {
    watchdog_default(|| {
        let log = Log::new();
        let l = log.clone();
        run(async move {
            let queue = Rc::new(Queue::new(0));
            let getter = getter(&queue, &l, "getter");
            bare_yield().await?;
            // The put wakes the getter; a newcomer takes the item before it runs.
            queue.put_nowait("x")?;
            assert_eq!(queue.get_nowait()?, "x");
            bare_yield().await?;
            l.say(format!("len-{}", queue.len()));
            queue.put_nowait("y")?;
            getter.join().await
        })
        .expect("main ends well (the woken getter must wait again, not fail Empty)");
        assert_eq!(log.texts(), ["len-0", "getter-got-y"], "{:?}", log.lines());
    });
}

#[test]
fn ex2_a_put_on_a_full_queue_that_is_shut_down_fails_and_does_not_wait() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Rc::new(Queue::new(1));
            queue.put_nowait(1)?;
            let q = Rc::clone(&queue);
            let waiting = spawn_named("waiting", async move { Ok(q.put(2).await) });
            bare_yield().await?;
            queue.shutdown(false);
            // Still full: the woken putter and a new put both fail, neither waits.
            let woken = waiting.join().await?;
            let newcomer = queue.put(3).await;
            Ok((woken, newcomer, queue.get_nowait()?, queue.get_nowait()))
        });
        assert_eq!(
            result,
            Ok((
                Err(QueueError::ShutDown),
                Err(QueueError::ShutDown),
                1,
                Err(QueueError::ShutDown)
            )),
            "a put on a full queue checks the shutdown before it waits"
        );
    });
}

#[test]
fn ex2_a_get_or_a_put_that_must_wait_delivers_a_cancel_made_before_it() {
    watchdog_default(|| {
        let result = run(async {
            let queue = Rc::new(Queue::new(1));
            let q = Rc::clone(&queue);
            let getter = spawn_named("getter", async move {
                plain_yield().await;
                // The request came while the getter was away: this get is where it
                // sees it.
                q.get().await.map_err(Error::from)
            });
            bare_yield().await?;
            getter.cancel(None);
            // Nothing is put until the getter ends: a get that queued a waiter instead
            // of delivering the cancel would wait for ever.
            let got = getter.join().await;
            queue.put_nowait(1)?;
            let q = Rc::clone(&queue);
            let putter = spawn_named("putter", async move {
                plain_yield().await;
                q.put(2).await.map_err(Error::from)
            });
            bare_yield().await?;
            putter.cancel(None);
            let put = putter.join().await;
            let left = queue.get_nowait()?;
            Ok((got, put, left, queue.len()))
        });
        assert_eq!(
            result,
            Ok((
                Err(Error::Cancelled(None)),
                Err(Error::Cancelled(None)),
                1,
                0
            )),
            "a get or a put that would wait is a cancellation point: with a cancel \
             request not yet delivered it returns the cancel instead of queueing a waiter"
        );
    });
}
