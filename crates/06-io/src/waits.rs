//! One-shot waits: where a readiness future parks its waker, and takes the event.

use std::io;
use std::os::fd::RawFd;
use std::task::Waker;

use crate::Io;
use crate::io::discard;
use crate::registration::{Direction, Waiter, WaiterId};

impl Io {
    /// A fresh id for a readiness future.
    pub(crate) fn next_waiter_id(&self) -> WaiterId {
        let id = self.next_waiter.get();
        self.next_waiter.set(id + 1);
        WaiterId(id)
    }

    // ANCHOR: wait
    /// Parks `waker` in the `direction` slot of `fd` for the future `id`, and makes sure
    /// mio watches that direction. Polling again with a new waker replaces the old one.
    ///
    /// Fails if another future already waits on the same fd and direction (as asyncio's
    /// streams refuse two coroutines waiting for the same data).
    pub fn wait(
        &self,
        fd: RawFd,
        direction: Direction,
        id: WaiterId,
        waker: &Waker,
    ) -> io::Result<()> {
        let (old, refused, stale, outcome) = {
            let mut table = self.table.borrow_mut();
            let parked = table.by_fd.get(&fd).copied().filter(|&index| {
                matches!(table.get(index).waiter(direction),
                    Waiter::Waiting { id: mine, .. } if *mine == id)
            });
            // Parking a new waker for a wait already armed needs no check; a new wait
            // might find the stale entry of a closed fd, and `entry` replaces it.
            let (index, stale) = match parked {
                Some(index) => (index, None),
                None => self.entry(&mut table, fd, direction),
            };
            let registration = table.get(index);
            let slot = registration.waiter(direction);
            if let Waiter::Waiting { id: other, .. } = slot
                && *other != id
            {
                return Err(io::Error::other(format!(
                    "another task is already waiting for fd {fd} to become {}",
                    direction.name()
                )));
            }
            let old = std::mem::replace(
                slot,
                Waiter::Waiting {
                    id,
                    waker: waker.clone(),
                },
            );
            let outcome = self.apply(index, registration, false);
            let mut refused = Waiter::Idle;
            if outcome.is_err() {
                // The waker clone goes too, dropped below with no borrow held.
                refused = std::mem::take(registration.waiter(direction));
                table.free_if_empty(index);
            }
            (old, refused, stale, outcome)
        };
        drop(old);
        drop(refused);
        if let Some(stale) = stale {
            discard(stale);
        }
        outcome
    }
    // ANCHOR_END: wait

    /// Takes the readiness the event left for the future `id`, if it came.
    pub fn take_ready(&self, fd: RawFd, direction: Direction, id: WaiterId) -> bool {
        let mut table = self.table.borrow_mut();
        let Some(&index) = table.by_fd.get(&fd) else {
            return false;
        };
        let slot = table.get(index).waiter(direction);
        if matches!(slot, Waiter::Ready { id: ready } if *ready == id) {
            *slot = Waiter::Idle;
            table.free_if_empty(index);
            true
        } else {
            false
        }
    }

    /// Forgets the future `id` (it was dropped): its waker goes, and so does mio's
    /// interest if nothing else needs it.
    pub(crate) fn cancel_wait(&self, fd: RawFd, direction: Direction, id: WaiterId) {
        let old = {
            let mut table = self.table.borrow_mut();
            let Some(&index) = table.by_fd.get(&fd) else {
                return;
            };
            let registration = table.get(index);
            let slot = registration.waiter(direction);
            let mine = match slot {
                Waiter::Waiting { id: other, .. } | Waiter::Ready { id: other } => *other == id,
                Waiter::Idle => false,
            };
            if !mine {
                return;
            }
            let old = std::mem::take(slot);
            let _ = self.apply(index, registration, false);
            table.free_if_empty(index);
            old
        };
        drop(old);
    }
}
