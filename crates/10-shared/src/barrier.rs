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
/// asyncio builds its barrier on a `Condition`, whose lock hand-offs take more turns;
/// this one does not match those turns. A party cancelled while it waits just leaves
/// (as in asyncio); [`abort`](Self::abort) breaks the barrier for everyone.
pub struct Barrier {
    parties: usize,
    count: Cell<usize>,
    broken: Cell<bool>,
    waiters: WaitQueue,
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
    /// A barrier for `parties` tasks (at least one).
    pub fn new(parties: usize) -> Self {
        Self {
            parties: parties.max(1),
            count: Cell::new(0),
            broken: Cell::new(false),
            waiters: WaitQueue::default(),
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
        // poll) no longer counts.
        Wait::new(
            &self.waiters,
            &self.bound,
            |woken| {
                if !woken {
                    self.count.set(self.count.get().saturating_sub(1));
                }
            },
            // A round wakes every waiter: none is passed over.
            || false,
        )
        .await?;
        if self.broken.get() {
            return Err(Error::Failed(BARRIER_BROKEN.to_owned()));
        }
        Ok(index)
    }

    /// Breaks the barrier: every waiter, and every later wait, fails.
    pub fn abort(&self) {
        self.broken.set(true);
        self.release_round();
    }

    /// Ends the round: the count starts again from 0, and every waiter of the round
    /// is woken, a cancelled one too. A waiter that leaves unserved is then always
    /// one of the round still filling, so its leaving takes back its own place, not
    /// one of the next round's. (A cancelled waiter, woken, still sees its cancel
    /// first when it runs.)
    fn release_round(&self) {
        self.count.set(0);
        for waiter in self.waiters.snapshot() {
            if !waiter.is_woken() {
                waiter.wake();
            }
        }
    }
}
