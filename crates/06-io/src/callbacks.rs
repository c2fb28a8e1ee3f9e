//! Persistent callbacks: asyncio's `add_reader`, `remove_reader`, `add_writer` and
//! `remove_writer`, on the shared half of the I/O layer.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;

use oneloop_core::Label;
use oneloop_core::hooks::CancelFlag;

use crate::Io;
use crate::io::discard;
use crate::registration::{Direction, Watcher};

impl Io {
    // ANCHOR: add_reader
    /// Calls `callback` in a coming turn whenever `fd` is readable (asyncio's
    /// `loop.add_reader`). A reader already set for `fd` is replaced, and a handle of
    /// it already queued will not run.
    ///
    /// Level-triggered, as in asyncio: if the callback leaves data unread, it runs again
    /// in the next turn. (mio is edge-triggered; the driver re-arms the fd after each
    /// event to get this.) `fd` may be a raw fd, a std socket or a mio source.
    ///
    /// The registration belongs to the open file behind `fd`. oneloop's own sockets
    /// remove theirs when dropped; for any other fd, remove the reader before closing
    /// it, as in asyncio. One closed without that leaves a stale entry that never fires
    /// and is dropped when the number is registered again (see the `io` module).
    ///
    /// Fails with [`IO_CLOSED`](crate::IO_CLOSED) once the loop is closed.
    pub fn add_reader(&self, fd: &impl AsRawFd, callback: impl Fn() + 'static) -> io::Result<()> {
        self.add_watcher(Direction::Read, fd.as_raw_fd(), None, Rc::new(callback))
    }
    // ANCHOR_END: add_reader

    /// Like [`add_reader`](Self::add_reader), with a label for traces.
    pub fn add_reader_named(
        &self,
        fd: &impl AsRawFd,
        label: impl Into<Label>,
        callback: impl Fn() + 'static,
    ) -> io::Result<()> {
        let label = Some(label.into());
        self.add_watcher(Direction::Read, fd.as_raw_fd(), label, Rc::new(callback))
    }

    /// Stops watching `fd` for reading (asyncio's `loop.remove_reader`). Returns whether
    /// a reader was set. A handle of it already queued will not run.
    pub fn remove_reader(&self, fd: &impl AsRawFd) -> bool {
        self.remove_watcher(Direction::Read, fd.as_raw_fd())
    }

    /// Calls `callback` in a coming turn whenever `fd` is writable (asyncio's
    /// `loop.add_writer`); level-triggered like [`add_reader`](Self::add_reader).
    pub fn add_writer(&self, fd: &impl AsRawFd, callback: impl Fn() + 'static) -> io::Result<()> {
        self.add_watcher(Direction::Write, fd.as_raw_fd(), None, Rc::new(callback))
    }

    /// Like [`add_writer`](Self::add_writer), with a label for traces.
    pub fn add_writer_named(
        &self,
        fd: &impl AsRawFd,
        label: impl Into<Label>,
        callback: impl Fn() + 'static,
    ) -> io::Result<()> {
        let label = Some(label.into());
        self.add_watcher(Direction::Write, fd.as_raw_fd(), label, Rc::new(callback))
    }

    /// Stops watching `fd` for writing (asyncio's `loop.remove_writer`). Returns whether
    /// a writer was set. A handle of it already queued will not run.
    pub fn remove_writer(&self, fd: &impl AsRawFd) -> bool {
        self.remove_watcher(Direction::Write, fd.as_raw_fd())
    }

    /// The one body of the four adders: sets the `direction` watcher of `fd`, labelled
    /// `label` or, without one, `reader fd 7` / `writer fd 7`.
    fn add_watcher(
        &self,
        direction: Direction,
        fd: RawFd,
        label: Option<Label>,
        callback: Rc<dyn Fn()>,
    ) -> io::Result<()> {
        let label = label.unwrap_or_else(|| {
            let role = match direction {
                Direction::Read => "reader",
                Direction::Write => "writer",
            };
            Label::from(format!("{role} fd {fd}"))
        });
        let watcher = Watcher {
            callback,
            cancel: CancelFlag::new(),
            label,
        };
        let (replaced, refused, stale, outcome) = {
            let mut table = self.table.borrow_mut();
            let (index, stale) = self.entry(&mut table, fd, direction);
            let registration = table.get(index);
            let was_active = registration.is_active();
            let replaced = registration.watcher(direction).replace(watcher);
            let outcome = self.apply(index, registration, false);
            let mut refused = None;
            if outcome.is_err() {
                // Leave the table as it was: no watcher that mio does not know of. The
                // refused callback is user code: it is dropped below, unborrowed.
                refused = registration.watcher(direction).take();
            }
            table.settle(index, was_active);
            (replaced, refused, stale, outcome)
        };
        drop(refused);
        if let Some(stale) = stale {
            // The entry of a file closed without being removed: its callbacks go.
            discard(self, stale);
        }
        if let Some(old) = replaced {
            // asyncio cancels the handle it replaces; its captures drop here, unborrowed.
            old.cancel.cancel();
        }
        outcome
    }

    /// The one body of the two removers: drops the `direction` watcher of `fd` and
    /// cancels its queued handle, if any.
    fn remove_watcher(&self, direction: Direction, fd: RawFd) -> bool {
        let removed = {
            let mut table = self.table.borrow_mut();
            let Some(index) = table.by_fd.get(fd) else {
                return false;
            };
            let registration = table.get(index);
            let was_active = registration.is_active();
            let removed = registration.watcher(direction).take();
            // Removing interest cannot fail in a way worth reporting: see `apply`.
            let _ = self.apply(index, registration, false);
            table.settle(index, was_active);
            removed
        };
        match removed {
            Some(watcher) => {
                watcher.cancel.cancel();
                true
            }
            None => false,
        }
    }
}
