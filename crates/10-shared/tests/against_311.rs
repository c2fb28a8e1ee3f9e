//! Edge cases of cancellation checked against what CPython 3.11 does with the same
//! program (asyncio's `wait`, `timeout`, `TaskGroup`, the primitives), and against
//! oneloop's own contract where asyncio has no counterpart: a future dropped unfinished
//! (a select's loser, an aborted task) must leave nothing behind that acts later.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, sleep, spawn_named};
use oneloop_shared::{Condition, Lock, Queue, Semaphore};
use oneloop_testkit::watchdog_default;

fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> Result<T, Error> {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move { spawn_named("main", main).join().await })
        .expect("the loop runs to the end")
}

type Log = Rc<RefCell<Vec<String>>>;

async fn tick() -> Result<(), Error> {
    sleep(Duration::ZERO).await
}

#[test]
fn lock_waiter_cancelled_after_being_woken_passes_the_lock_on() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let lock = Rc::new(Lock::new());
            lock.acquire().await?;
            let mk = |n: &'static str| {
                let (lock, l) = (Rc::clone(&lock), Rc::clone(&l));
                spawn_named(n, async move {
                    match lock.acquire().await {
                        Ok(()) => {
                            l.borrow_mut().push(format!("{n} got"));
                            lock.release()?;
                        }
                        Err(_) => l.borrow_mut().push(format!("{n} cancelled")),
                    }
                    Ok(())
                })
            };
            let (t1, t2) = (mk("w1"), mk("w2"));
            tick().await?;
            lock.release()?;
            t1.cancel(None);
            t1.join().await?;
            t2.join().await?;
            Ok(())
        })
        .unwrap();
        assert_eq!(*log.borrow(), ["w1 cancelled", "w2 got"]);
    });
}

#[test]
fn semaphore_unit_handed_to_a_waiter_then_cancelled_goes_on() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        let value = run(async move {
            let sem = Rc::new(Semaphore::new(0));
            let mk = |n: &'static str| {
                let (sem, l) = (Rc::clone(&sem), Rc::clone(&l));
                spawn_named(n, async move {
                    match sem.acquire().await {
                        Ok(()) => l.borrow_mut().push(format!("{n} got")),
                        Err(_) => l.borrow_mut().push(format!("{n} cancelled")),
                    }
                    Ok(())
                })
            };
            let (t1, t2) = (mk("w1"), mk("w2"));
            tick().await?;
            sem.release();
            t1.cancel(None);
            t1.join().await?;
            t2.join().await?;
            Ok(sem.value())
        })
        .unwrap();
        assert_eq!(
            (log.borrow().clone(), value),
            (vec!["w1 cancelled".to_owned(), "w2 got".to_owned()], 0)
        );
    });
}

#[test]
fn queue_item_handed_to_a_getter_then_cancelled_goes_on() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        run(async move {
            let q = Rc::new(Queue::<u32>::new(0));
            let mk = |n: &'static str| {
                let (q, l) = (Rc::clone(&q), Rc::clone(&l));
                spawn_named(n, async move {
                    match q.get().await {
                        Ok(v) => l.borrow_mut().push(format!("{n} got {v}")),
                        Err(_) => l.borrow_mut().push(format!("{n} cancelled")),
                    }
                    Ok(())
                })
            };
            let (t1, t2) = (mk("g1"), mk("g2"));
            tick().await?;
            q.put_nowait(7).unwrap();
            t1.cancel(None);
            t1.join().await?;
            t2.join().await?;
            Ok(())
        })
        .unwrap();
        assert_eq!(*log.borrow(), ["g1 cancelled", "g2 got 7"]);
    });
}

#[test]
fn condition_notify_then_cancel_matches_311() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        let still = run(async move {
            let c = Rc::new(Condition::new());
            let mk = |n: &'static str| {
                let (c, l) = (Rc::clone(&c), Rc::clone(&l));
                spawn_named(n, async move {
                    c.acquire().await?;
                    match c.wait().await {
                        Ok(()) => l.borrow_mut().push(format!("{n} notified")),
                        Err(_) => l.borrow_mut().push(format!("{n} cancelled")),
                    }
                    c.release()?;
                    Ok(())
                })
            };
            let (t1, t2) = (mk("c1"), mk("c2"));
            tick().await?;
            c.acquire().await?;
            c.notify(1)?;
            c.release()?;
            t1.cancel(None);
            sleep(Duration::from_millis(100)).await?;
            let still = !t2.is_done();
            t2.cancel(None);
            let _ = t1.join().await;
            let _ = t2.join().await;
            Ok(still)
        })
        .unwrap();
        assert_eq!(
            (log.borrow()[0].clone(), still),
            ("c1 cancelled".to_owned(), true)
        );
    });
}

#[test]
fn a_task_group_child_sees_the_task_locals_of_its_spawner() {
    use oneloop_shared::TaskLocal;
    watchdog_default(|| {
        let seen = run(async {
            oneloop_shared::spawn(async {
                let request: Rc<TaskLocal<String>> = Rc::new(TaskLocal::new("request"));
                request.set("req-1".to_owned());
                let r = Rc::clone(&request);
                let from_group = oneloop_cancel::task_group(|tg| async move {
                    let child = tg.spawn("child", async move { Ok(r.get()) })?;
                    Ok(child)
                })
                .await?;
                let r = Rc::clone(&request);
                let from_gather = oneloop_cancel::gather(vec![async move { Ok(r.get()) }], false)
                    .await?
                    .pop()
                    .expect("one child")?;
                Ok((from_group.try_result().expect("done")?, from_gather))
            })
            .join()
            .await
        })
        .unwrap();
        assert_eq!(seen, (Some("req-1".to_owned()), Some("req-1".to_owned())));
    });
}

#[test]
fn what_a_group_child_sets_stays_in_that_child() {
    use oneloop_shared::TaskLocal;
    watchdog_default(|| {
        let seen = run(async {
            oneloop_shared::spawn(async {
                let request: Rc<TaskLocal<String>> = Rc::new(TaskLocal::new("request"));
                let (a, b) = (Rc::clone(&request), Rc::clone(&request));
                let (first, second) = oneloop_cancel::task_group(|tg| async move {
                    let first = tg.spawn("first", async move {
                        a.set("req-A".to_owned());
                        tick().await?;
                        Ok(a.get())
                    })?;
                    let second = tg.spawn("second", async move {
                        tick().await?;
                        Ok(b.get())
                    })?;
                    Ok((first, second))
                })
                .await?;
                let mine = request.get();
                Ok((
                    first.try_result().expect("done")?,
                    second.try_result().expect("done")?,
                    mine,
                ))
            })
            .join()
            .await
        })
        .unwrap();
        // asyncio: each child runs in a copy of the parent's context.
        assert_eq!(seen, (Some("req-A".to_owned()), None, None));
    });
}

#[test]
fn putter_chosen_by_a_get_then_cancelled_passes_the_slot_on() {
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        let left = run(async move {
            let q = Rc::new(Queue::<u32>::new(1));
            q.put_nowait(0).unwrap();
            let mk = |n: &'static str, v: u32| {
                let (q, l) = (Rc::clone(&q), Rc::clone(&l));
                spawn_named(n, async move {
                    match q.put(v).await {
                        Ok(()) => l.borrow_mut().push(format!("{n} put")),
                        Err(_) => l.borrow_mut().push(format!("{n} cancelled")),
                    }
                    Ok(())
                })
            };
            let (t1, t2) = (mk("p1", 1), mk("p2", 2));
            tick().await?;
            q.get_nowait().unwrap();
            t1.cancel(None);
            t1.join().await?;
            t2.join().await?;
            Ok(q.get_nowait().ok())
        })
        .unwrap();
        assert_eq!(
            (log.borrow().clone(), left),
            (
                vec!["p1 cancelled".to_owned(), "p2 put".to_owned()],
                Some(2)
            )
        );
    });
}

#[test]
fn barrier_party_released_then_cancelled_leaves_the_next_round_whole() {
    use oneloop_shared::Barrier;
    watchdog_default(|| {
        let log = Log::default();
        let l = Rc::clone(&log);
        let waiting = run(async move {
            let b = Rc::new(Barrier::new(2));
            let mk = |n: &'static str| {
                let (b, l) = (Rc::clone(&b), Rc::clone(&l));
                spawn_named(n, async move {
                    match b.wait().await {
                        Ok(i) => l.borrow_mut().push(format!("{n} {i}")),
                        Err(e) => l.borrow_mut().push(format!("{n} {e}")),
                    }
                    Ok(())
                })
            };
            let a = mk("a");
            tick().await?;
            let c = mk("c");
            tick().await?;
            a.cancel(None);
            a.join().await?;
            c.join().await?;
            let (d, e) = (mk("d"), mk("e"));
            d.join().await?;
            e.join().await?;
            Ok(b.n_waiting())
        })
        .unwrap();
        assert_eq!(
            (log.borrow().clone(), waiting),
            (
                vec![
                    "c 1".to_owned(),
                    "a cancelled".to_owned(),
                    "e 1".to_owned(),
                    "d 0".to_owned()
                ],
                0
            )
        );
    });
}
