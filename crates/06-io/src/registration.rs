//! What the I/O layer remembers about one file descriptor.
//!
//! asyncio's selector keeps, per registered fd, a `SelectorKey` whose `data` is the pair
//! `(reader_handle, writer_handle)`. oneloop keeps the same pair of persistent callbacks
//! and adds, for each direction, the slot of a one-shot readiness future: a task that
//! awaits "this socket is readable" parks its waker there.
//!
//! The interest given to mio is always derived from these four slots, never stored
//! apart from them: a persistent reader or a waiting future on the read side means
//! `READABLE`, and the same on the write side means `WRITABLE`.

use std::os::fd::RawFd;
use std::rc::Rc;
use std::task::Waker;

use mio::Interest;
use oneloop_core::Label;
use oneloop_core::hooks::CancelFlag;

/// Which way a socket must be ready: for reading or for writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Data (or end of file, or an error) can be read without blocking.
    Read,
    /// Bytes can be written without blocking (or the peer is gone, or an error).
    Write,
}

impl Direction {
    /// The mio interest of this direction.
    pub(crate) fn interest(self) -> Interest {
        match self {
            Direction::Read => Interest::READABLE,
            Direction::Write => Interest::WRITABLE,
        }
    }

    /// The word used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "readable",
            Direction::Write => "writable",
        }
    }
}

/// The id of one readiness future, so that a slot knows who parked in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WaiterId(pub(crate) u64);

// ANCHOR: watcher
/// A persistent callback (asyncio's reader or writer `Handle`).
///
/// It is queued as a shared handle: the same `Rc` is pushed on every event, so an event
/// allocates nothing.
#[derive(Clone)]
pub(crate) struct Watcher {
    pub(crate) callback: Rc<dyn Fn()>,
    pub(crate) cancel: CancelFlag,
    pub(crate) label: Label,
}
// ANCHOR_END: watcher

// ANCHOR: waiter
/// The slot of the one-shot readiness future of one direction.
#[derive(Debug, Default)]
pub(crate) enum Waiter {
    /// Nobody waits.
    #[default]
    Idle,
    /// A future waits; the event moves it to `Ready` and wakes the waker.
    Waiting { id: WaiterId, waker: Waker },
    /// The event came; the future with this id takes it on its next poll.
    Ready { id: WaiterId },
}
// ANCHOR_END: waiter

impl Waiter {
    fn is_waiting(&self) -> bool {
        matches!(self, Waiter::Waiting { .. })
    }

    /// The event came: a waiting slot turns `Ready` for its future and hands back the
    /// waker to wake (once no borrow is held). Any other slot is left as it is.
    pub(crate) fn fire(&mut self) -> Option<Waker> {
        let Waiter::Waiting { id, .. } = *self else {
            return None;
        };
        match std::mem::replace(self, Waiter::Ready { id }) {
            Waiter::Waiting { waker, .. } => Some(waker),
            _ => unreachable!("matched as Waiting just above"),
        }
    }
}

// ANCHOR: kept
/// What the table knows about one direction of a socket that keeps its registration.
///
/// A socket's fd stays registered with epoll between its waits (see `waits.rs`). epoll
/// is edge-triggered here: it reports each arrival once, and a registration that stays
/// armed is not looked at again. So a new wait may skip `epoll_ctl` only if an edge is
/// sure to come for any data there: the socket was seen empty (`WouldBlock`) and no
/// event was taken for this direction since.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Kept {
    /// The direction stays armed with nobody waiting (until an event finds nobody).
    pub(crate) keep: bool,
    /// The socket was seen empty in this direction, and no event was taken since.
    pub(crate) drained: bool,
}
// ANCHOR_END: kept

/// One registered file descriptor.
pub(crate) struct Registration {
    pub(crate) fd: RawFd,
    pub(crate) reader: Option<Watcher>,
    pub(crate) writer: Option<Watcher>,
    pub(crate) read: Waiter,
    pub(crate) write: Waiter,
    /// The interest mio holds for this fd now (`None`: not registered with mio).
    pub(crate) armed: Option<Interest>,
    /// epoll said it no longer knows this fd: the file was closed under the entry, which
    /// is stale and is replaced by the next registration on the number.
    pub(crate) forgotten: bool,
    /// Made for one of oneloop's sockets, which releases it when dropped: only such an
    /// entry keeps its registration between waits.
    pub(crate) owned: bool,
    pub(crate) read_kept: Kept,
    pub(crate) write_kept: Kept,
    /// An event reported the read side closed (or an error): an end of file may be
    /// queued behind the data with no edge to come, so a short read proves nothing.
    pub(crate) read_closed_seen: bool,
}

impl Registration {
    pub(crate) fn new(fd: RawFd) -> Self {
        Self {
            fd,
            reader: None,
            writer: None,
            read: Waiter::Idle,
            write: Waiter::Idle,
            armed: None,
            forgotten: false,
            owned: false,
            read_kept: Kept::default(),
            write_kept: Kept::default(),
            read_closed_seen: false,
        }
    }

    pub(crate) fn kept(&mut self, direction: Direction) -> &mut Kept {
        match direction {
            Direction::Read => &mut self.read_kept,
            Direction::Write => &mut self.write_kept,
        }
    }

    /// Whether a new wait in `direction` needs no `epoll_ctl`: the fd is armed for it,
    /// and an edge is sure to come for any data there (see [`Kept`]).
    pub(crate) fn armed_for_wait(&self, direction: Direction) -> bool {
        let kept = match direction {
            Direction::Read => self.read_kept,
            Direction::Write => self.write_kept,
        };
        self.owned
            && kept.keep
            && kept.drained
            && self.armed.is_some_and(|armed| match direction {
                Direction::Read => armed.is_readable(),
                Direction::Write => armed.is_writable(),
            })
    }

    pub(crate) fn waiter(&mut self, direction: Direction) -> &mut Waiter {
        match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
        }
    }

    pub(crate) fn watcher(&mut self, direction: Direction) -> &mut Option<Watcher> {
        match direction {
            Direction::Read => &mut self.reader,
            Direction::Write => &mut self.writer,
        }
    }

    // ANCHOR: wanted
    /// The interest this fd needs now: a persistent watcher, a waiting future, or a
    /// socket's registration kept between its waits.
    pub(crate) fn wanted(&self) -> Option<Interest> {
        let read = self.reader.is_some() || self.read.is_waiting() || self.read_kept.keep;
        let write = self.writer.is_some() || self.write.is_waiting() || self.write_kept.keep;
        match (read, write) {
            (true, true) => Some(Interest::READABLE | Interest::WRITABLE),
            (true, false) => Some(Interest::READABLE),
            (false, true) => Some(Interest::WRITABLE),
            (false, false) => None,
        }
    }
    // ANCHOR_END: wanted

    /// Whether nothing at all is kept for this fd (the slot can be freed).
    pub(crate) fn is_empty(&self) -> bool {
        self.wanted().is_none() && matches!((&self.read, &self.write), (Waiter::Idle, Waiter::Idle))
    }

    /// Whether a callback or a future is registered here (a kept registration with
    /// nobody waiting is not: it can wake no one).
    pub(crate) fn is_active(&self) -> bool {
        self.reader.is_some()
            || self.writer.is_some()
            || !matches!((&self.read, &self.write), (Waiter::Idle, Waiter::Idle))
    }

    /// One line for a stepper's snapshot.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(reader) = &self.reader {
            parts.push(format!("reader {}", reader.label));
        }
        if let Some(writer) = &self.writer {
            parts.push(format!("writer {}", writer.label));
        }
        for (name, waiter, kept) in [
            ("read", &self.read, self.read_kept),
            ("write", &self.write, self.write_kept),
        ] {
            match waiter {
                Waiter::Idle if kept.keep => parts.push(format!("kept armed to {name}")),
                Waiter::Idle => {}
                Waiter::Waiting { .. } => parts.push(format!("a task waits to {name}")),
                Waiter::Ready { .. } => parts.push(format!("{name} ready, not yet taken")),
            }
        }
        format!("fd {}: {}", self.fd, parts.join(", "))
    }
}
