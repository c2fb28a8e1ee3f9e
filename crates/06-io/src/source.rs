//! Who owns a registration: the socket it was made for.
//!
//! The I/O table is keyed by fd number, as epoll is. A number outlives nothing: once a
//! socket is closed, the kernel hands the same number to the next socket opened. So an
//! entry must go when its socket goes, or the next socket with that number inherits it.
//!
//! [`Owned`] is how oneloop's sockets make sure of that. It wraps the mio socket and
//! remembers the I/O table of the loop it was made in. When it is dropped it releases
//! its fd in that table and in the table of the loop running now, if any (every
//! callback and waker registered for the fd goes, and epoll forgets it), and only then
//! is the fd closed. This is how smol's `async-io` treats its `Async<T>`: the source is
//! removed from the reactor in `Drop`, before the inner I/O handle closes.
//!
//! The `Weak<Io>` it keeps makes `Owned`, and every socket built on it, `!Send`: the
//! table it releases belongs to the loop's thread, and a drop on another thread would
//! edit it behind the loop's back. The compiler enforces this; `TcpStream`'s docs hold
//! the proof.
//!
//! The same rule lets a socket keep its fd registered with epoll between its waits
//! (see `waits.rs`): its entry is sure to go when it goes. A socket made outside every
//! loop is adopted by the first loop it waits in, so that its drop finds that table
//! too.
//!
//! An entry made through a raw fd (`add_reader(&raw_fd, ..)`) has no owner; removing it
//! is the caller's job, as in asyncio. What happens when a caller forgets is defined in
//! `io.rs`: the entry is stale, never fires, and is replaced when the number is
//! registered again.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::{Rc, Weak};

use oneloop_core::hooks::{LoopId, with_current};

use crate::{Direction, Io};

// ANCHOR: owned
/// A socket whose entries in the I/O table are removed when it is dropped.
pub(crate) struct Owned<S: AsRawFd> {
    inner: S,
    /// The tables that may hold an entry for this fd: the loop it was made in, or the
    /// first it waited in.
    tables: RefCell<Vec<Weak<Io>>>,
    /// The loop whose table is the first of `tables`.
    home: Cell<Option<LoopId>>,
}

impl<S: AsRawFd> Owned<S> {
    /// Takes ownership of `inner`, noting the I/O table of the loop running now.
    pub(crate) fn new(inner: S) -> Self {
        let current =
            with_current(|core| Io::of(core).map(|io| (core.id(), Rc::downgrade(&io)))).flatten();
        Self {
            inner,
            home: Cell::new(current.as_ref().map(|(id, _)| *id)),
            tables: RefCell::new(current.map(|(_, io)| io).into_iter().collect()),
        }
    }

    /// The socket's syscall found it empty in `direction` (`WouldBlock`): tells the running loop's table, which then keeps the fd registered between waits. Only a table this socket releases when dropped is told.
    ///
    /// Hands back the running loop's table (`None` outside a loop with an I/O driver),
    /// so that the wait which usually follows need not look for it again.
    ///
    /// Most reads end here. When the running loop is the socket's own, its table is
    /// the one the socket keeps: found by the loop's id, with no search of the loop's
    /// extensions.
    pub(crate) fn note_drained(&self, direction: Direction) -> Option<Rc<Io>> {
        self.note(direction, true)
    }

    /// Like [`note_drained`](Self::note_drained), after a read that came back shorter
    /// than its buffer. It took all the data, but an end of file or an error may have
    /// come with it, its edge taken with the data's. If the table knows no such event
    /// came for this fd, the short read counts as `WouldBlock` would; otherwise the
    /// entry keeps the fd registered and the next wait re-arms it (one `epoll_ctl`), so
    /// that epoll reports what is there already.
    pub(crate) fn note_short_read(&self) -> Option<Rc<Io>> {
        self.note(Direction::Read, false)
    }

    /// `drained`: a `WouldBlock` proved the socket empty; else a short read, proof
    /// only if the table saw no closed event for the fd.
    fn note(&self, direction: Direction, drained: bool) -> Option<Rc<Io>> {
        let now = with_current(|core| core.id())?;
        let home = (self.home.get() == Some(now))
            .then(|| self.tables.borrow().first().and_then(Weak::upgrade))
            .flatten();
        let io = match home {
            Some(io) => io,
            None => {
                let io = Io::current().ok()?;
                let mut tables = self.tables.borrow_mut();
                if tables.is_empty() {
                    tables.push(Rc::downgrade(&io));
                    self.home.set(Some(now));
                } else if !tables
                    .iter()
                    .any(|table| std::ptr::eq(table.as_ptr(), Rc::as_ptr(&io)))
                {
                    // Not a table this socket releases: wait in it, note nothing.
                    return Some(io);
                }
                drop(tables);
                io
            }
        };
        let fd = self.inner.as_raw_fd();
        let drained = drained || io.short_read_proves_empty(fd);
        io.note_drained(fd, direction, drained);
        Some(io)
    }
}

impl<S: AsRawFd> From<S> for Owned<S> {
    fn from(inner: S) -> Self {
        Self::new(inner)
    }
}

impl<S: AsRawFd> std::ops::Deref for Owned<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.inner
    }
}

impl<S: AsRawFd> Drop for Owned<S> {
    /// Releases the fd in every table that may hold it, while the fd is still open;
    /// the socket itself closes right after, when `inner` is dropped.
    fn drop(&mut self) {
        let fd = self.inner.as_raw_fd();
        let mut tables: Vec<Rc<Io>> = std::mem::take(self.tables.get_mut())
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        if let Ok(current) = Io::current()
            && !tables.iter().any(|io| Rc::ptr_eq(io, &current))
        {
            tables.push(current);
        }
        for io in tables {
            io.release(fd);
        }
    }
}
// ANCHOR_END: owned

/// Reads through a shared reference, as `&mio::net::TcpStream` does.
impl<'a, S: AsRawFd> io::Read for &'a Owned<S>
where
    &'a S: io::Read,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&self.inner).read(buf)
    }
}

/// Writes through a shared reference, as `&mio::net::TcpStream` does.
impl<'a, S: AsRawFd> io::Write for &'a Owned<S>
where
    &'a S: io::Write,
{
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&self.inner).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&self.inner).flush()
    }
}

impl<S: AsRawFd> AsRawFd for Owned<S> {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl<S: AsRawFd> fmt::Debug for Owned<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Owned")
            .field("fd", &self.inner.as_raw_fd())
            .finish_non_exhaustive()
    }
}
