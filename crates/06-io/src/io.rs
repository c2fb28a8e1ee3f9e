//! `Io`: the shared half of the I/O layer, where callbacks and futures register.
//!
//! The I/O driver has two halves, as every layer of the loop does. The parking half,
//! [`IoDriver`](crate::IoDriver), owns `mio::Poll` and sleeps in it. This half, `Io`, is
//! an `Rc` put in the loop's extensions: it owns a clone of mio's `Registry` and the
//! table of registered file descriptors, so that `add_reader` from a callback and a
//! readiness future from a task can register while the loop runs. This file holds the
//! table and its rules; the callbacks (`add_reader` and friends) are in `callbacks.rs`,
//! the one-shot waits of readiness futures in `waits.rs`.
//!
//! Rules the three keep:
//!
//! - mio's interest for an fd is always recomputed from the table (see
//!   `Registration::wanted`), and given to mio with `register`, `reregister` or
//!   `deregister` at once.
//! - No user code runs while the table is borrowed: a replaced callback or waker is
//!   carried out of the borrow and dropped after it.
//! - An fd closed without being removed is forgotten by epoll on its own; if its number
//!   comes back for a new socket, `reregister` fails with `NotFound` and the fd is simply
//!   registered again.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::os::fd::RawFd;
use std::rc::Rc;
use std::task::Waker;

use mio::unix::SourceFd;
use mio::{Registry, Token};
use oneloop_core::{Core, with_current};

use crate::registration::{Registration, Watcher};

/// The message of the error a readiness future gives outside a loop with an I/O driver.
pub const NO_IO_DRIVER: &str = "no I/O driver: this future must run on an event loop whose \
driver stack has an IoDriver (stage 6)";

// ANCHOR: fired
/// What one event made ready, taken out of the table so it can be queued with no
/// borrow held. Moving it allocates nothing.
#[derive(Default)]
pub(crate) struct Fired {
    pub(crate) reader: Option<Watcher>,
    pub(crate) read_waker: Option<Waker>,
    pub(crate) writer: Option<Watcher>,
    pub(crate) write_waker: Option<Waker>,
}
// ANCHOR_END: fired

#[derive(Default)]
pub(crate) struct Table {
    slots: Vec<Option<Registration>>,
    free: Vec<usize>,
    pub(crate) by_fd: HashMap<RawFd, usize>,
}

impl Table {
    /// The slot of `fd`, created if missing.
    pub(crate) fn slot_of(&mut self, fd: RawFd) -> usize {
        if let Some(&index) = self.by_fd.get(&fd) {
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

    /// Frees the slot of `index` if nothing is kept there any more.
    pub(crate) fn free_if_empty(&mut self, index: usize) {
        let empty = self.slots[index]
            .as_ref()
            .is_some_and(Registration::is_empty);
        if empty && let Some(registration) = self.slots[index].take() {
            self.by_fd.remove(&registration.fd);
            self.free.push(index);
        }
    }
}

// ANCHOR: io
/// The shared half of the I/O layer: mio's registry and the table of watched fds.
pub struct Io {
    registry: Registry,
    pub(crate) table: RefCell<Table>,
    pub(crate) next_waiter: Cell<u64>,
}
// ANCHOR_END: io

impl fmt::Debug for Io {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Io")
            .field("registrations", &self.registrations())
            .finish_non_exhaustive()
    }
}

impl Io {
    pub(crate) fn new(registry: Registry) -> Self {
        Self {
            registry,
            table: RefCell::new(Table::default()),
            next_waiter: Cell::new(1),
        }
    }

    /// The `Io` of the loop running a turn on this thread.
    ///
    /// Fails with [`NO_IO_DRIVER`] when no loop runs here, or when its driver stack has
    /// no [`IoDriver`](crate::IoDriver).
    pub fn current() -> io::Result<Rc<Io>> {
        with_current(|core| Self::of(core))
            .flatten()
            .ok_or_else(|| io::Error::other(NO_IO_DRIVER))
    }

    /// The `Io` installed in `core`'s extensions, if any.
    pub fn of(core: &Core) -> Option<Rc<Io>> {
        core.extensions().get::<Io>()
    }

    /// How many file descriptors have something registered.
    pub fn registrations(&self) -> usize {
        self.table.borrow().by_fd.len()
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
        match (registration.armed, registration.wanted()) {
            (None, None) => Ok(()),
            (Some(_), None) => {
                registration.armed = None;
                // The fd may be closed already (epoll then forgot it): nothing to undo.
                let _ = self.registry.deregister(&mut SourceFd(&fd));
                Ok(())
            }
            (None, Some(wanted)) => {
                self.registry.register(&mut SourceFd(&fd), token, wanted)?;
                registration.armed = Some(wanted);
                Ok(())
            }
            (Some(armed), Some(wanted)) => {
                if armed != wanted || rearm {
                    match self.registry.reregister(&mut SourceFd(&fd), token, wanted) {
                        // Closed and reused without being removed: register it afresh.
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {
                            self.registry.register(&mut SourceFd(&fd), token, wanted)?;
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

    // ANCHOR: take_event
    /// Takes what one event made ready out of the table, and re-arms the fd.
    ///
    /// The persistent watchers stay (a clone of each is taken: no allocation); a waiting
    /// future's slot turns `Ready` and its waker is taken, so that direction is no longer
    /// wanted and mio stops watching it (one-shot). Whatever is still wanted is given to
    /// mio again, which re-arms the edge: data left unread is reported next time.
    pub(crate) fn take_event(&self, token: Token, read: bool, write: bool) -> Fired {
        let mut fired = Fired::default();
        let mut table = self.table.borrow_mut();
        let index = token.0;
        let Some(Some(registration)) = table.slots.get_mut(index) else {
            // An event for a slot freed since: nothing waits for it.
            return fired;
        };
        if read {
            fired.reader = registration.reader.clone();
            fired.read_waker = registration.read.fire();
        }
        if write {
            fired.writer = registration.writer.clone();
            fired.write_waker = registration.write.fire();
        }
        if self.apply(index, registration, true).is_err() {
            // Re-arming failed (the fd was closed under us): stop watching it, and let
            // the callbacks find out from their own syscall, as they would in asyncio.
            registration.armed = None;
        }
        fired
    }
    // ANCHOR_END: take_event
}
