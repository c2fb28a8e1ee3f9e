//! One-shot waits: where a readiness future parks its waker, and takes the event.
//!
//! # A socket keeps its registration
//!
//! A wait is one-shot: the event wakes one task, once. The fd's registration with
//! epoll need not be. For a raw fd the table gives epoll the fd when the wait starts
//! and takes it back when the event comes: two `epoll_ctl` per wait. A socket of
//! oneloop's ([`TcpStream`](crate::TcpStream), [`TcpListener`](crate::TcpListener))
//! keeps its fd registered from its first wait until it is dropped, and the waits in
//! between cost no `epoll_ctl` at all.
//!
//! That is only safe because epoll, as mio sets it up, is edge-triggered: it reports
//! data when it arrives, once, and a registration that stays armed is not looked at
//! again. A wait that starts while data is already there would never be told, unless
//! an edge is still to come. The socket tells the table when one is sure to come: its
//! syscall said `WouldBlock`, so any data after that arrives later and makes an edge.
//! A short read counts the same only if no event for the fd reported its read side
//! closed (or an error): after such an event, an end of file or an error that came
//! with the data is still queued, and its edge was taken with the data's. Then the
//! socket keeps the fd registered, and its next wait re-arms it (see
//! `Io::short_read_proves_empty`). Each event taken for the direction cancels that
//! (see `Kept`). A wait with that assurance parks its waker and calls nothing; any
//! other wait re-arms the fd (one `EPOLL_CTL_MOD`), and epoll then looks at the
//! socket and reports data already there.
//!
//! An event that finds nobody waiting ends the keeping for that direction: the
//! socket's task is busy elsewhere, and an fd left armed would end the loop's sleep
//! for nothing. The next wait arms it again.

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
            let known = table.by_fd.get(fd);
            // The usual wait of a socket: nobody waits in this direction and an edge is
            // sure to come. Park the waker; mio's interest stays as it is.
            if let Some(index) = known {
                let registration = table.get(index);
                if registration.armed_for_wait(direction)
                    && matches!(registration.waiter(direction), Waiter::Idle)
                {
                    let was_active = registration.is_active();
                    *registration.waiter(direction) = Waiter::Waiting {
                        id,
                        waker: waker.clone(),
                    };
                    table.settle(index, was_active);
                    return Ok(());
                }
            }
            let parked = known.filter(|&index| {
                matches!(table.get(index).waiter(direction),
                    Waiter::Waiting { id: mine, .. } if *mine == id)
            });
            // Parking a new waker for a wait already armed needs no check, nor does a
            // socket's wait that an edge is sure to reach (see the module docs). Any
            // other wait might find the stale entry of a closed fd, and `entry`
            // replaces it (or re-arms the fd: one `epoll_ctl`).
            let armed = known.filter(|&index| table.get(index).armed_for_wait(direction));
            let (index, stale) = match parked.or(armed) {
                Some(index) => (index, None),
                None => self.entry(&mut table, fd, direction),
            };
            let registration = table.get(index);
            let was_active = registration.is_active();
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
            }
            table.settle(index, was_active);
            (old, refused, stale, outcome)
        };
        drop(old);
        drop(refused);
        if let Some(stale) = stale {
            discard(self, stale);
        }
        outcome
    }
    // ANCHOR_END: wait

    /// Takes the readiness the event left for the future `id`, if it came. A future
    /// whose entry was taken out while it waited (its socket was dropped, or its fd
    /// was found closed) is told "ready" too: its task's syscall then says what
    /// became of the fd.
    pub fn take_ready(&self, fd: RawFd, direction: Direction, id: WaiterId) -> bool {
        if self.forget_released(id) {
            return true;
        }
        let mut table = self.table.borrow_mut();
        let Some(index) = table.by_fd.get(fd) else {
            return false;
        };
        let slot = table.get(index).waiter(direction);
        if matches!(slot, Waiter::Ready { id: ready } if *ready == id) {
            *slot = Waiter::Idle;
            table.settle(index, true);
            true
        } else {
            false
        }
    }

    /// Whether `id` was noted as released (then it no longer is).
    fn forget_released(&self, id: WaiterId) -> bool {
        let mut released = self.released.borrow_mut();
        match released.iter().position(|noted| *noted == id) {
            Some(at) => {
                released.swap_remove(at);
                true
            }
            None => false,
        }
    }

    /// Forgets the future `id` (it was dropped): its waker goes, and so does mio's
    /// interest if nothing else needs it.
    pub(crate) fn cancel_wait(&self, fd: RawFd, direction: Direction, id: WaiterId) {
        if self.forget_released(id) {
            return;
        }
        let old = {
            let mut table = self.table.borrow_mut();
            let Some(index) = table.by_fd.get(fd) else {
                return;
            };
            let registration = table.get(index);
            let was_active = registration.is_active();
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
            table.settle(index, was_active);
            old
        };
        drop(old);
    }

    // ANCHOR: note_drained
    /// A socket of oneloop's found `fd` empty in `direction` (its syscall said
    /// `WouldBlock`): any data from now on makes an edge. Its entry keeps the fd
    /// registered between waits, and its next wait needs no `epoll_ctl`. Called only by the socket that owns `fd` and releases its entry
    /// when dropped (see `source.rs`).
    ///
    /// An entry that the socket did not make (a raw fd's, maybe stale, or a
    /// callback's) is left as it is: only one made here is known to be the socket's.
    ///
    /// With `drained` false (after a short read) the entry is still made the socket's
    /// and kept, but the next wait re-arms the fd: the socket had no syscall to prove
    /// that an edge will come.
    pub(crate) fn note_drained(&self, fd: RawFd, direction: Direction, drained: bool) {
        if self.is_closed() {
            return;
        }
        let mut table = self.table.borrow_mut();
        let index = match table.by_fd.get(fd) {
            Some(index) => index,
            None => {
                let index = table.slot_of(fd);
                table.get(index).owned = true;
                index
            }
        };
        let registration = table.get(index);
        if registration.owned && !registration.forgotten {
            let kept = registration.kept(direction);
            kept.keep = true;
            kept.drained = drained;
        }
    }
    // ANCHOR_END: note_drained
}
