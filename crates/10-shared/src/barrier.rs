//! `Barrier`: a number of parties that wait for each other.

use std::cell::Cell;
use std::fmt;

use oneloop_cancel::Error;

use crate::bind::LoopBound;
use crate::error::BARRIER_BROKEN;
use crate::wait::Wait;
use crate::waiters::WaitQueue;

/// asyncio's `Barrier` (3.11): [`wait`](Self::wait) blocks until `parties` tasks wait,
/// then all of them go on; each gets its arrival index, from 0.
///
/// The last to arrive wakes the others in one call, so they all run in the next turn.
/// Until the last of them has run, the round is draining: a party that comes then
/// (the last arrival, waiting again at once) waits for the round to drain before it
/// counts in the next one, as asyncio's does, so no party laps a slower one. A party
/// cancelled while it waits just leaves (as in asyncio); [`abort`](Self::abort) breaks
/// the barrier for everyone.
pub struct Barrier {
    parties: usize,
    count: Cell<usize>,
    /// Parties of the released round that have not left yet.
    draining: Cell<usize>,
    broken: Cell<bool>,
    waiters: WaitQueue,
    /// Parties that came while a round drained.
    gate: WaitQueue,
    bound: LoopBound,
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier")
            .field("parties", &self.parties)
            .field("waiting", &self.count.get())
            .field("broken", &self.broken.get())
            .finish()
    }
}

impl Barrier {
    /// A barrier for `parties` tasks.
    ///
    /// # Panics
    ///
    /// When `parties` is 0, as asyncio's `Barrier(0)` raises `ValueError`: no wait
    /// could ever be the last.
    pub fn new(parties: usize) -> Self {
        assert!(parties > 0, "a barrier needs at least one party");
        Self {
            parties,
            count: Cell::new(0),
            draining: Cell::new(0),
            broken: Cell::new(false),
            waiters: WaitQueue::default(),
            gate: WaitQueue::default(),
            bound: LoopBound::default(),
        }
    }

    /// How many parties are waiting now.
    pub fn n_waiting(&self) -> usize {
        self.count.get()
    }

    /// Whether it is broken.
    pub fn broken(&self) -> bool {
        self.broken.get()
    }

    /// Waits for the other parties; `Ok(index)`, or `Err(Error::Failed(BARRIER_BROKEN))`
    /// if the barrier is or gets broken. A cancellation point while it waits.
    pub async fn wait(&self) -> Result<usize, Error> {
        // The last round's parties leave first; the gate opens when the last has run.
        while self.draining.get() > 0 && !self.broken.get() {
            Wait::new(&self.gate, &self.bound, |_| {}, || false).await?;
        }
        if self.broken.get() {
            return Err(Error::Failed(BARRIER_BROKEN.to_owned()));
        }
        let index = self.count.get();
        if index + 1 == self.parties {
            self.release_round();
            return Ok(index);
        }
        self.count.set(index + 1);
        // A party that leaves unserved (cancelled, dropped, or refused at its first
        // poll) no longer counts; one that was woken leaves its draining round.
        Wait::new(
            &self.waiters,
            &self.bound,
            |woken| {
                if woken {
                    self.leave_round();
                } else {
                    self.count.set(self.count.get().saturating_sub(1));
                }
            },
            // A round wakes every waiter: none is passed over.
            || false,
        )
        .await?;
        self.leave_round();
        if self.broken.get() {
            return Err(Error::Failed(BARRIER_BROKEN.to_owned()));
        }
        Ok(index)
    }

    /// Breaks the barrier: every waiter, and every later wait, fails.
    pub fn abort(&self) {
        self.broken.set(true);
        self.release_round();
        wake_all(&self.gate);
    }

    /// Ends the round: the count starts again from 0, and every waiter of the round
    /// is woken, a cancelled one too. A waiter that leaves unserved is then always
    /// one of the round still filling, so its leaving takes back its own place, not
    /// one of the next round's. (A cancelled waiter, woken, still sees its cancel
    /// first when it runs.)
    fn release_round(&self) {
        self.count.set(0);
        let woken = wake_all(&self.waiters);
        self.draining.set(self.draining.get() + woken);
    }

    /// A woken party of the draining round has run (or left): the last one opens
    /// the gate to the parties that came meanwhile.
    fn leave_round(&self) {
        let left = self.draining.get().saturating_sub(1);
        self.draining.set(left);
        if left == 0 {
            wake_all(&self.gate);
        }
    }
}

/// Wakes every waiter of `queue` not woken yet, and says how many.
fn wake_all(queue: &WaitQueue) -> usize {
    let mut woken = 0;
    for waiter in queue.snapshot() {
        if !waiter.is_woken() {
            waiter.wake();
            woken += 1;
        }
    }
    woken
}
