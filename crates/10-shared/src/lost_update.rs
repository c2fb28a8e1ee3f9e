//! The lost update: the experiment this stage starts from.

use std::cell::Cell;
use std::rc::Rc;

use oneloop_cancel::{Error, spawn_named, yield_now};

use crate::Lock;

/// What one run of [`lost_update`] counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostUpdate {
    /// The increments made: workers × rounds.
    pub expected: u64,
    /// The counter's value at the end.
    pub counted: u64,
    /// The loop's turns for the whole run.
    pub turns: u64,
}

impl LostUpdate {
    /// How many increments were lost.
    pub fn lost(&self) -> u64 {
        self.expected - self.counted
    }
}

// ANCHOR: worker
/// One worker: `rounds` times, read the shared counter, await one yield (a stand-in
/// for any await: a database call, a socket), write back what was read plus one.
/// With a lock, the read, the await and the write happen while holding it.
async fn worker(counter: Rc<Cell<u64>>, rounds: u64, lock: Option<Rc<Lock>>) -> Result<(), Error> {
    for _ in 0..rounds {
        if let Some(lock) = &lock {
            lock.acquire().await?;
        }
        let seen = counter.get();
        yield_now().await?;
        counter.set(seen + 1);
        if let Some(lock) = &lock {
            lock.release()?;
        }
    }
    Ok(())
}
// ANCHOR_END: worker

/// Runs `workers` workers of `rounds` increments each on a fresh virtual-time loop,
/// sharing one counter, with or without a [`Lock`] around each increment.
pub fn lost_update(workers: u64, rounds: u64, with_lock: bool) -> LostUpdate {
    let counter = Rc::new(Cell::new(0));
    let lock = with_lock.then(|| Rc::new(Lock::new()));
    let mut event_loop = oneloop_timers::virtual_time_loop();
    let shared = Rc::clone(&counter);
    event_loop
        .run_until_complete(async move {
            let tasks: Vec<_> = (0..workers)
                .map(|_| spawn_named("worker", worker(Rc::clone(&shared), rounds, lock.clone())))
                .collect();
            for task in &tasks {
                task.join().await.expect("a worker does not fail");
            }
        })
        .expect("the loop runs");
    let turns = event_loop.core().turn();
    event_loop.close();
    LostUpdate {
        expected: workers * rounds,
        counted: counter.get(),
        turns,
    }
}
