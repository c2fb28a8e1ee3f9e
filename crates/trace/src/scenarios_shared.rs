//! Stage 10's scenarios: shared state on the real runtime (`oneloop-shared`).
//!
//! Both run in virtual time, each on a main task of the cancel layer (stage 9), since
//! the primitives' waits are cancellation points.

use std::cell::Cell;
use std::future::Future;
use std::io;
use std::rc::Rc;

use oneloop_cancel::{Error, spawn_named, task_future, yield_now};
use oneloop_shared::Lock;
use oneloop_timers::virtual_time_loop;

use crate::session::{Session, start};

/// A session whose main task is a task of the cancel layer.
fn cancel_main(main: impl Future<Output = Result<(), Error>> + 'static) -> Box<dyn Session> {
    let (future, _task) = task_future("main", main);
    start(virtual_time_loop(), async move {
        future.await;
    })
}

// ANCHOR: lost_update
/// Two workers, three rounds each: read the counter, yield, write back what was read
/// plus one. Both read the same value in the same turn, so every round loses one
/// increment: the counter ends at 3 of 6.
pub fn lost_update() -> io::Result<Box<dyn Session>> {
    Ok(cancel_main(async {
        let counter = Rc::new(Cell::new(0));
        let workers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|name| {
                let counter = Rc::clone(&counter);
                spawn_named(name, async move {
                    for _ in 0..3 {
                        let seen = counter.get();
                        yield_now().await?;
                        counter.set(seen + 1);
                    }
                    Ok(())
                })
            })
            .collect();
        for worker in &workers {
            worker.join().await?;
        }
        assert_eq!(counter.get(), 3, "half the updates are lost");
        Ok(())
    }))
}
// ANCHOR_END: lost_update

// ANCHOR: lock_handoff
/// Main holds a lock; `a`, `b` and `c` queue for it. Each release wakes the oldest
/// waiter, whose step runs in the next turn: first in, first out, one at a time.
pub fn lock_handoff() -> io::Result<Box<dyn Session>> {
    Ok(cancel_main(async {
        let lock = Rc::new(Lock::new());
        lock.acquire().await?;
        let waiters: Vec<_> = ["a", "b", "c"]
            .into_iter()
            .map(|name| {
                let lock = Rc::clone(&lock);
                spawn_named(name, async move {
                    lock.acquire().await?;
                    yield_now().await?;
                    lock.release()
                })
            })
            .collect();
        yield_now().await?;
        lock.release()?;
        for waiter in &waiters {
            waiter.join().await?;
        }
        Ok(())
    }))
}
// ANCHOR_END: lock_handoff
