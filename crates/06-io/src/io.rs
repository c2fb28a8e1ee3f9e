//! `Io`: the shared half of the I/O layer, where callbacks and futures register.
//!
//! The I/O driver has two halves, as every layer of the loop does. The parking half,
//! [`IoDriver`](crate::IoDriver), owns `mio::Poll` and sleeps in it. This half, `Io`, is
//! an `Rc` put in the loop's extensions: it owns a clone of mio's `Registry` and the
//! table of registered file descriptors, so that `add_reader` from a callback and a
//! readiness future from a task can register while the loop runs. This file holds the
//! table and its rules; the callbacks (`add_reader` and friends) are in `callbacks.rs`,
//! the one-shot waits of readiness futures in `waits.rs`, and the owner of an entry in
//! `source.rs`.
//!
//! Rules the table keeps:
//!
//! - mio's interest for an fd is always recomputed from the table (see
//!   `Registration::wanted`), and given to mio with `register`, `reregister` or
//!   `deregister` at once.
//! - No user code runs while the table is borrowed: a replaced callback or waker is
//!   carried out of the borrow and dropped after it.
//! - The table is keyed by fd number, as epoll is, so an entry belongs to the open file
//!   it was made for. oneloop's own sockets ([`TcpStream`](crate::TcpStream),
//!   [`TcpListener`](crate::TcpListener)) own their entry: dropping one removes
//!   everything registered for its fd and deregisters it before the fd is closed, in
//!   the table of the loop it was made in and in that of the loop running at the drop.
//!   (A socket made outside every loop and dropped outside every loop reaches no table;
//!   an entry it had is stale, as below.)
//! - A raw fd is the caller's to remove. One closed with something still registered
//!   leaves a stale entry, whose callbacks never run again. Usually epoll forgot the
//!   file when the fd closed. But epoll forgets a file only when its last fd closes: a
//!   duplicate (`dup`, `try_clone`) keeps the file and its registration under the old
//!   number alive, and epoll still reports it. Re-arming after such an event fails
//!   (the number is closed, or names another file), so `take_event` marks the entry
//!   `forgotten` and runs none of its callbacks. When the number comes back and something registers on it, the table
//!   asks epoll about the entry it holds; epoll answers `NotFound`, and the stale entry
//!   is dropped (its callbacks cancelled, a waiting task woken to retry) before the new
//!   registration starts clean. A `NotFound` met anywhere else (removing one side of a
//!   stale entry, re-arming after an event) marks the entry `forgotten`: nothing is
//!   given to epoll for the new file, and the next registration replaces the entry.
//! - At close the whole table goes: every fd is deregistered, every callback and waker
//!   dropped, and the registry released. Registering on a closed loop is an error.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io;
use std::mem;
use std::os::fd::RawFd;
use std::panic::{self, AssertUnwindSafe};
use std::rc::{Rc, Weak};
use std::task::Waker;

use mio::unix::SourceFd;
use mio::{Registry, Token};
use oneloop_core::hooks::{CALLBACK_PANICKED, with_current};
use oneloop_core::{Core, ExceptionReport, Label};
use oneloop_task::hooks::panic_message;

use crate::registration::{Direction, Kept, Registration, Waiter, WaiterId, Watcher};

/// The message of the error a readiness future gives outside a loop with an I/O driver.
pub const NO_IO_DRIVER: &str = "no I/O driver: this future must run on an event loop whose \
driver stack has an IoDriver (stage 6)";

/// The message of the error registering on a closed loop gives (asyncio raises
/// "Event loop is closed").
pub const IO_CLOSED: &str = "the event loop is closed: its I/O table takes no registration";

/// The label of the close hook that empties the I/O table.
const CLOSE_LABEL: &str = "io: release the table";

// ANCHOR: io_wake
/// The waker of a task that waits on an fd, taken out of the table by an event.
///
/// Waking is user code: a waker may be any `Waker`, and one that panics must not unwind
/// out of the loop's park. [`wake`](Self::wake) catches the panic and hands it to the
/// loop's exception handler, as the core does for a panicking callback, and the events
/// after it are processed as usual.
pub(crate) struct IoWake {
    waker: Waker,
    fd: RawFd,
    direction: Direction,
}

impl IoWake {
    pub(crate) fn new(waker: Waker, fd: RawFd, direction: Direction) -> Self {
        Self {
            waker,
            fd,
            direction,
        }
    }

    /// Wakes the task; a panic is reported, never propagated.
    pub(crate) fn wake(self) {
        let Self {
            waker,
            fd,
            direction,
        } = self;
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| waker.wake())) {
            let report = ExceptionReport {
                message: CALLBACK_PANICKED.to_owned(),
                label: Label::from(format!("waker of fd {fd} ({})", direction.name())),
                panic: panic_message(payload),
            };
            // Events are processed inside a turn, with the loop current.
            if with_current(|core| core.report(&report)).is_none() {
                drop(report);
            }
        }
    }
}
// ANCHOR_END: io_wake

// ANCHOR: fired
/// What one event made ready, taken out of the table so it can be queued with no
/// borrow held. Moving it allocates nothing.
#[derive(Default)]
pub(crate) struct Fired {
    pub(crate) reader: Option<Watcher>,
    pub(crate) read_waker: Option<IoWake>,
    pub(crate) writer: Option<Watcher>,
    pub(crate) write_waker: Option<IoWake>,
}
// ANCHOR_END: fired

/// The table's fd index: slot indices in an array indexed by the fd number itself.
///
/// Every wait, event and short read looks an fd up. An fd is a small number that the
/// kernel hands out lowest first, so an array as long as the highest fd registered
/// finds its slot with one bounds check and one load, where a hashed map hashes,
/// probes and compares. It costs four bytes per fd number up to the highest one seen.
#[derive(Default)]
pub(crate) struct FdIndex {
    /// Slot index plus one, by fd; zero: no entry.
    slots: Vec<u32>,
}

impl FdIndex {
    /// The slot of `fd`, if it has an entry.
    pub(crate) fn get(&self, fd: RawFd) -> Option<usize> {
        let at = usize::try_from(fd).ok()?;
        match self.slots.get(at) {
            Some(&plus_one) if plus_one != 0 => Some(plus_one as usize - 1),
            _ => None,
        }
    }

    /// A negative number is no fd: it gets no index, and epoll refuses it anyway.
    fn insert(&mut self, fd: RawFd, index: usize) {
        let Ok(at) = usize::try_from(fd) else {
            return;
        };
        if at >= self.slots.len() {
            self.slots.resize(at + 1, 0);
        }
        self.slots[at] = u32::try_from(index + 1).expect("fewer slots than u32::MAX");
    }

    fn remove(&mut self, fd: RawFd) {
        if let Some(at) = usize::try_from(fd).ok()
            && let Some(slot) = self.slots.get_mut(at)
        {
            *slot = 0;
        }
    }
}

#[derive(Default)]
pub(crate) struct Table {
    slots: Vec<Option<Registration>>,
    free: Vec<usize>,
    pub(crate) by_fd: FdIndex,
    /// How many entries are active (a callback or a future is registered): the
    /// loop's stall check and the driver read this at every park, so it is counted,
    /// not walked.
    active: usize,
}

impl Table {
    /// The slot of `fd`, created if missing.
    pub(crate) fn slot_of(&mut self, fd: RawFd) -> usize {
        if let Some(index) = self.by_fd.get(fd) {
            return index;
        }
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        self.slots[index] = Some(Registration::new(fd));
        self.by_fd.insert(fd, index);
        index
    }

    pub(crate) fn get(&mut self, index: usize) -> &mut Registration {
        self.slots[index]
            .as_mut()
            .expect("a slot found through by_fd is occupied")
    }

    /// Brings the count of active entries up to date after the entry of `index`
    /// changed (it was active before if `was_active`), and frees its slot if nothing
    /// is kept there any more.
    pub(crate) fn settle(&mut self, index: usize, was_active: bool) {
        let Some(registration) = self.slots[index].as_ref() else {
            return;
        };
        let active = registration.is_active();
        match (was_active, active) {
            (false, true) => self.active += 1,
            (true, false) => self.active -= 1,
            _ => {}
        }
        // An active entry is never empty: only an idle one can free its slot.
        if !active && registration.is_empty() {
            drop(self.take(index));
        }
    }

    /// Puts a fresh entry for `fd` in the slot of `index`, and hands back the old one.
    pub(crate) fn replace(&mut self, index: usize, fd: RawFd) -> Registration {
        let old = std::mem::replace(self.get(index), Registration::new(fd));
        if old.is_active() {
            self.active -= 1;
        }
        old
    }

    /// Takes the entry of `index` out and frees its slot, whatever it holds.
    fn take(&mut self, index: usize) -> Option<Registration> {
        let registration = self.slots[index].take()?;
        self.by_fd.remove(registration.fd);
        self.free.push(index);
        if registration.is_active() {
            self.active -= 1;
        }
        Some(registration)
    }
}

// ANCHOR: io
/// The shared half of the I/O layer: mio's registry and the table of watched fds.
pub struct Io {
    /// `None` once the loop closed.
    registry: RefCell<Option<Registry>>,
    pub(crate) table: RefCell<Table>,
    pub(crate) next_waiter: Cell<u64>,
    /// The readiness futures whose entry was taken out while they waited (see
    /// [`discard`]): each is told "ready" on its next poll, or forgotten when dropped.
    pub(crate) released: RefCell<Vec<WaiterId>>,
    /// Whether the close hook that empties the table is set on the loop.
    attached: Cell<bool>,
    /// Every `epoll_ctl` this table asked of mio, by operation.
    ctls: Cell<EpollCtls>,
    /// How many times [`Io::current`] found this table in the loop's extensions.
    searches: Cell<u64>,
    /// The driver tells this table which events reported a read side closed
    /// ([`note_closed_events`](Io::note_closed_events)), so a short read may be trusted.
    closed_reported: Cell<bool>,
}
// ANCHOR_END: io

/// How many `epoll_ctl` calls an I/O table made, by operation: what registering costs
/// in syscalls, counted where the table calls mio (see [`Io::epoll_ctls`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EpollCtls {
    /// `EPOLL_CTL_ADD`: an fd given to epoll (`register`).
    pub add: u64,
    /// `EPOLL_CTL_MOD`: an fd's interest changed or re-armed (`reregister`).
    pub modify: u64,
    /// `EPOLL_CTL_DEL`: an fd taken out of epoll (`deregister`).
    pub delete: u64,
}

impl EpollCtls {
    /// All three together.
    pub fn total(&self) -> u64 {
        self.add + self.modify + self.delete
    }
}

impl fmt::Debug for Io {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Io")
            .field("registrations", &self.registrations())
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

impl Io {
    pub(crate) fn new(registry: Registry) -> Self {
        Self {
            registry: RefCell::new(Some(registry)),
            table: RefCell::new(Table::default()),
            next_waiter: Cell::new(1),
            released: RefCell::new(Vec::new()),
            attached: Cell::new(false),
            ctls: Cell::new(EpollCtls::default()),
            searches: Cell::new(0),
            closed_reported: Cell::new(false),
        }
    }

    /// Before the events of a park are processed: notes each fd whose event reported
    /// its read side closed, or an error. A short read on any other socket then proves
    /// it empty with nothing queued behind the data, and its next wait needs no
    /// `epoll_ctl`; see `TcpStream::read`. A driver that never calls this leaves every
    /// short read untrusted, which costs that `epoll_ctl` and loses nothing.
    pub(crate) fn note_closed_events(&self, events: &mio::Events) {
        self.closed_reported.set(true);
        if events.is_empty() {
            return;
        }
        let mut table = self.table.borrow_mut();
        for event in events {
            if (event.is_read_closed() || event.is_error())
                && let Some(Some(registration)) = table.slots.get_mut(event.token().0)
            {
                registration.read_closed_seen = true;
            }
        }
    }

    /// Whether a short read on the entry of `fd` proves the socket empty: the driver
    /// reports closed events, and none came for this fd.
    pub(crate) fn short_read_proves_empty(&self, fd: RawFd) -> bool {
        if !self.closed_reported.get() {
            return false;
        }
        let table = self.table.borrow();
        match table.by_fd.get(fd) {
            Some(index) => table
                .slots
                .get(index)
                .and_then(Option::as_ref)
                .is_some_and(|registration| !registration.read_closed_seen),
            None => true,
        }
    }

    /// The `Io` of the loop running a turn on this thread.
    ///
    /// Fails with [`NO_IO_DRIVER`] when no loop runs here, or when its driver stack has
    /// no [`IoDriver`](crate::IoDriver).
    pub fn current() -> io::Result<Rc<Io>> {
        let io = with_current(|core| Self::of(core))
            .flatten()
            .ok_or_else(|| io::Error::other(NO_IO_DRIVER))?;
        io.searches.set(io.searches.get() + 1);
        Ok(io)
    }

    /// How many times [`Io::current`] has found this table: each is a search of the
    /// loop's extensions (a short list compared by type). A readiness future made by
    /// [`readable`](crate::readable) or [`writable`](crate::writable) searches once, on
    /// its first poll; a wait of oneloop's own sockets finds the table through the
    /// socket and does not search.
    pub fn searches(&self) -> u64 {
        self.searches.get()
    }

    /// The `Io` installed in `core`'s extensions, if any.
    pub fn of(core: &Core) -> Option<Rc<Io>> {
        core.extensions().get::<Io>()
    }

    // ANCHOR: attach
    /// Ties the table to its loop, once: closing the loop empties it. The hook holds
    /// the table weakly, so it keeps nothing alive.
    pub(crate) fn attach(self: &Rc<Self>, core: &Core) {
        if self.attached.replace(true) {
            return;
        }
        let table = Rc::downgrade(self);
        core.add_close_hook(CLOSE_LABEL, move || {
            if let Some(io) = Weak::upgrade(&table) {
                io.close();
            }
        });
    }
    // ANCHOR_END: attach

    /// How many file descriptors a callback or a readiness future is registered on.
    ///
    /// A socket's fd that stays registered with epoll between its waits, with nobody
    /// waiting on it now, is not counted: it can wake no one. (So a loop whose tasks
    /// all wait on something that cannot come is still found stalled.)
    #[inline]
    pub fn registrations(&self) -> usize {
        self.table.borrow().active
    }

    /// How many file descriptors epoll watches for this table now, counting the
    /// sockets that stay registered between their waits. Walks the table.
    pub fn armed(&self) -> usize {
        let table = self.table.borrow();
        table
            .slots
            .iter()
            .flatten()
            .filter(|registration| registration.armed.is_some())
            .count()
    }

    /// How many `epoll_ctl` calls this table has made since the loop was built.
    pub fn epoll_ctls(&self) -> EpollCtls {
        self.ctls.get()
    }

    /// Counts one `epoll_ctl`.
    fn count(&self, op: fn(&mut EpollCtls) -> &mut u64) {
        let mut ctls = self.ctls.get();
        *op(&mut ctls) += 1;
        self.ctls.set(ctls);
    }

    /// Whether the loop closed (nothing can register any more).
    pub fn is_closed(&self) -> bool {
        self.registry.borrow().is_none()
    }

    /// One line per registered fd, for a stepper's snapshot.
    pub fn describe(&self) -> Vec<String> {
        let table = self.table.borrow();
        let mut lines: Vec<(RawFd, String)> = table
            .slots
            .iter()
            .flatten()
            .map(|registration| (registration.fd, registration.describe()))
            .collect();
        lines.sort();
        lines.into_iter().map(|(_, line)| line).collect()
    }

    /// Each fd a readiness future waits on, the direction, and the waker the event
    /// will wake: enough for a task tree to say which task waits on which socket. The
    /// wakers are cloned only when this is asked; the wait itself records nothing.
    pub fn waiters(&self) -> Vec<(RawFd, Direction, Waker)> {
        let table = self.table.borrow();
        let mut waiters = Vec::new();
        for registration in table.slots.iter().flatten() {
            for (direction, waiter) in [
                (Direction::Read, &registration.read),
                (Direction::Write, &registration.write),
            ] {
                if let Waiter::Waiting { waker, .. } = waiter {
                    waiters.push((registration.fd, direction, waker.clone()));
                }
            }
        }
        waiters.sort_by_key(|(fd, direction, _)| (*fd, *direction == Direction::Write));
        waiters
    }

    // ANCHOR: apply
    /// Gives mio the interest the table wants for this fd. With `rearm`, an unchanged
    /// interest is given again: that is what re-arms an edge-triggered fd.
    pub(crate) fn apply(
        &self,
        index: usize,
        registration: &mut Registration,
        rearm: bool,
    ) -> io::Result<()> {
        let fd = registration.fd;
        let token = Token(index);
        let registry = self.registry.borrow();
        let Some(registry) = registry.as_ref() else {
            registration.armed = None;
            return match registration.wanted() {
                None => Ok(()),
                Some(_) => Err(io::Error::other(IO_CLOSED)),
            };
        };
        match (registration.armed, registration.wanted()) {
            (None, None) => Ok(()),
            (Some(_), None) => {
                registration.armed = None;
                self.count(|c| &mut c.delete);
                // The fd may be closed already (epoll then forgot it): nothing to undo.
                let _ = registry.deregister(&mut SourceFd(&fd));
                Ok(())
            }
            (None, Some(wanted)) => {
                self.count(|c| &mut c.add);
                registry.register(&mut SourceFd(&fd), token, wanted)?;
                registration.armed = Some(wanted);
                Ok(())
            }
            (Some(armed), Some(wanted)) => {
                if armed != wanted || rearm {
                    self.count(|c| &mut c.modify);
                    match registry.reregister(&mut SourceFd(&fd), token, wanted) {
                        // epoll forgot the fd: the file was closed without being
                        // removed. Register nothing for whatever file has the number now.
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {
                            registration.armed = None;
                            registration.forgotten = true;
                            return Ok(());
                        }
                        other => other?,
                    }
                }
                registration.armed = Some(wanted);
                Ok(())
            }
        }
    }
    // ANCHOR_END: apply

    // ANCHOR: entry
    /// The slot of `fd` for a `direction` about to be registered on it, and the stale
    /// entry it replaced, if any (to be dropped by the caller once the table is released).
    ///
    /// An entry that mio is said to watch is checked with epoll first, by giving it the
    /// interest it is about to have (so this is the one `epoll_ctl` the registration
    /// needs). If epoll no longer knows the fd, the file the entry was made for was closed
    /// without being removed, and the number now names another file: the entry is stale,
    /// and a fresh one takes its place.
    pub(crate) fn entry(
        &self,
        table: &mut Table,
        fd: RawFd,
        direction: Direction,
    ) -> (usize, Option<Registration>) {
        let index = table.slot_of(fd);
        let registration = table.get(index);
        if registration.forgotten {
            return (index, Some(table.replace(index, fd)));
        }
        let Some(armed) = registration.armed else {
            return (index, None);
        };
        let after = armed | direction.interest();
        let outcome = match self.registry.borrow().as_ref() {
            Some(registry) => {
                self.count(|c| &mut c.modify);
                registry.reregister(&mut SourceFd(&fd), Token(index), after)
            }
            None => return (index, None),
        };
        match outcome {
            Ok(()) => {
                registration.armed = Some(after);
                (index, None)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                (index, Some(table.replace(index, fd)))
            }
            // Any other failure is the registration's own to report, from `apply`.
            Err(_) => (index, None),
        }
    }
    // ANCHOR_END: entry

    // ANCHOR: release
    /// Drops everything registered for `fd` and deregisters it, while the fd is still
    /// open. Called by the owner of the fd when it is dropped (see `source.rs`).
    pub(crate) fn release(&self, fd: RawFd) {
        let removed = {
            let mut table = self.table.borrow_mut();
            let Some(index) = table.by_fd.get(fd) else {
                return;
            };
            let mut removed = table.take(index);
            if let Some(registration) = removed.as_mut()
                && registration.armed.take().is_some()
                && let Some(registry) = self.registry.borrow().as_ref()
            {
                // The owner calls this before closing the fd, so epoll still knows it.
                self.count(|c| &mut c.delete);
                let _ = registry.deregister(&mut SourceFd(&fd));
            }
            removed
        };
        if let Some(registration) = removed {
            discard(self, registration);
        }
    }
    // ANCHOR_END: release

    // ANCHOR: close
    /// Empties the table at close: every fd is deregistered, every callback and waker
    /// dropped (after the borrow ends), and the registry released. Idempotent.
    pub(crate) fn close(&self) {
        let Some(registry) = self.registry.borrow_mut().take() else {
            return;
        };
        let table = mem::take(&mut *self.table.borrow_mut());
        for registration in table.slots.iter().flatten() {
            if registration.armed.is_some() {
                // Some of these fds may be closed already: epoll forgot those.
                self.count(|c| &mut c.delete);
                let _ = registry.deregister(&mut SourceFd(&registration.fd));
            }
        }
        drop(registry);
        for registration in table.slots.into_iter().flatten() {
            // A callback's captures are user code: one that panics when dropped is
            // reported, and the others are still dropped.
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop(registration))) {
                let report = ExceptionReport {
                    message: oneloop_core::hooks::CLOSE_HOOK_PANICKED.to_owned(),
                    label: Label::Static(CLOSE_LABEL),
                    panic: panic_message(payload),
                };
                if with_current(|core| core.report(&report)).is_none() {
                    drop(report);
                }
            }
        }
    }
    // ANCHOR_END: close

    // ANCHOR: take_event
    /// Takes what one event made ready out of the table, and re-arms the fd.
    ///
    /// An event for a stale entry (re-arming finds that epoll no longer knows the fd)
    /// runs none of its callbacks; see the `io` module.
    ///
    /// The persistent watchers stay (a clone of each is taken: no allocation), and an
    /// fd that has one is given to mio again, which re-arms the edge: data left unread
    /// is reported next time. A waiting future's slot turns `Ready` and its waker is
    /// taken (one-shot); a raw fd's direction is then no longer wanted, and mio stops
    /// watching it, while a socket's stays registered (see `waits.rs` and
    /// `settle_kept`).
    pub(crate) fn take_event(&self, token: Token, read: bool, write: bool) -> Fired {
        let mut fired = Fired::default();
        let mut table = self.table.borrow_mut();
        let index = token.0;
        let Some(Some(registration)) = table.slots.get_mut(index) else {
            // An event for a slot freed since: nothing waits for it.
            return fired;
        };
        let was_active = registration.is_active();
        let fd = registration.fd;
        // Only a persistent callback needs the edge re-armed (level-triggered, as in
        // asyncio). A waiting future is woken, and its task makes the syscall again.
        let rearm = registration.reader.is_some() || registration.writer.is_some();
        if read {
            fired.reader = registration.reader.clone();
            fired.read_waker = registration
                .read
                .fire()
                .map(|waker| IoWake::new(waker, fd, Direction::Read));
            settle_kept(&mut registration.read_kept, fired.read_waker.is_some());
        }
        if write {
            fired.writer = registration.writer.clone();
            fired.write_waker = registration
                .write
                .fire()
                .map(|waker| IoWake::new(waker, fd, Direction::Write));
            settle_kept(&mut registration.write_kept, fired.write_waker.is_some());
        }
        // With no callback to re-arm and the interest unchanged, mio has nothing to do.
        let unchanged = !rearm && registration.armed == registration.wanted();
        if registration.forgotten || (!unchanged && self.apply(index, registration, rearm).is_err())
        {
            registration.armed = None;
            registration.forgotten = true;
        }
        if registration.forgotten {
            // epoll reported an fd whose number no longer names the file the entry was
            // made for: it was closed without being removed, while a duplicate keeps the
            // file and its epoll registration alive. The entry is stale, and its
            // callbacks do not run (these are clones: no user code runs here). A waiting
            // task is still woken, to retry and find out from its own syscall.
            fired.reader = None;
            fired.writer = None;
        }
        table.settle(index, was_active);
        fired
    }
    // ANCHOR_END: take_event
}

// ANCHOR: settle_kept
/// An event was taken for one direction of an entry: an edge is no longer sure to
/// come for data there. If nobody waited, the socket's task is busy elsewhere, so
/// the direction stops being kept: an fd that stays armed with nobody waiting could
/// end the loop's sleep for nothing, turn after turn. Its next wait arms it again.
fn settle_kept(kept: &mut Kept, woke_someone: bool) {
    kept.drained = false;
    if !woke_someone {
        kept.keep = false;
    }
}
// ANCHOR_END: settle_kept

/// Disposes of an entry taken out of the table (stale, or released by its owner), with
/// no borrow held: its queued handles are cancelled, and a task still waiting on it is
/// woken so that it retries its syscall instead of waiting for an event that cannot
/// come. The ids of its readiness futures (waiting, or ready and not yet told) are
/// noted as released: each is ready on its next poll, and does not register again on
/// whatever file takes the number next.
pub(crate) fn discard(io: &Io, registration: Registration) {
    let Registration {
        fd,
        reader,
        writer,
        read,
        write,
        ..
    } = registration;
    for watcher in [reader, writer].into_iter().flatten() {
        watcher.cancel.cancel();
    }
    for waiter in [&read, &write] {
        if let Waiter::Waiting { id, .. } | Waiter::Ready { id } = waiter {
            io.released.borrow_mut().push(*id);
        }
    }
    for (waiter, direction) in [(read, Direction::Read), (write, Direction::Write)] {
        if let Waiter::Waiting { waker, .. } = waiter {
            IoWake::new(waker, fd, direction).wake();
        }
    }
}
