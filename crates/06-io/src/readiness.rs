//! Readiness futures: "wake me when this fd is readable (or writable)", once.
//!
//! This is the bridge between the selector and `async fn`. asyncio's `sock_recv` waits
//! with a callback instead: after one `recv` that raises `BlockingIOError`, it adds a
//! reader that does the `recv` itself on each event and completes a future, and a done
//! callback on that future removes the reader. Here the future parks the task's waker in
//! the fd's slot in [`Io`]; the driver's event turns the slot to ready and wakes the
//! task; the next poll takes the readiness, and the task makes the syscall again.
//!
//! It is one-shot: the event wakes the task once, and the caller's next `WouldBlock`
//! makes a new future. For a raw fd, mio then forgets the direction until that future
//! registers again. A socket of oneloop's keeps its fd registered between waits (see
//! `waits.rs`), so its waits cost no `epoll_ctl`.
//!
//! Readiness is a hint, not a promise. The socket may have been drained in between, or
//! the event may be spurious: always retry the syscall and go back to waiting on
//! `WouldBlock` (see [`TcpStream::read`](crate::TcpStream::read)).

use std::future::{Future, poll_fn};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

use crate::{Direction, Io, WaiterId};

/// Waits until `fd` is readable (data, end of file, or an error to read).
pub fn readable(fd: &impl AsRawFd) -> Readiness {
    Readiness::new(fd.as_raw_fd(), Direction::Read)
}

/// Waits until `fd` is writable (buffer space, or an error to find by writing).
pub fn writable(fd: &impl AsRawFd) -> Readiness {
    Readiness::new(fd.as_raw_fd(), Direction::Write)
}

// ANCHOR: readiness_state
/// Where a [`Readiness`] future is.
#[derive(Debug)]
pub(crate) enum ReadinessState {
    /// Not polled yet: nothing registered, no `Io` found.
    Unpolled,
    /// Registered with this `Io` under this id; waiting for the event.
    Waiting { io: Rc<Io>, id: WaiterId },
    /// Returned `Ready`.
    Done,
}
// ANCHOR_END: readiness_state

// ANCHOR: readiness
/// The future returned by [`readable`] and [`writable`]: ready once the fd is.
#[derive(Debug)]
#[must_use = "a future does nothing unless awaited"]
pub struct Readiness {
    pub(crate) fd: RawFd,
    pub(crate) direction: Direction,
    pub(crate) state: ReadinessState,
}
// ANCHOR_END: readiness

impl Readiness {
    /// A future for `fd` becoming ready in `direction`.
    pub fn new(fd: RawFd, direction: Direction) -> Self {
        Self {
            fd,
            direction,
            state: ReadinessState::Unpolled,
        }
    }

    /// Waits on `fd` in the table `io`, which the caller already holds (a socket
    /// finds its loop's table by the loop's id): the first poll registers there, with
    /// no search of the loop's extensions. Later polls are the future's own.
    pub(crate) fn in_table(
        io: Rc<Io>,
        fd: RawFd,
        direction: Direction,
    ) -> impl Future<Output = io::Result<()>> {
        let mut table = Some(io);
        let mut readiness = Readiness::new(fd, direction);
        poll_fn(move |cx| {
            if let Some(io) = table.take() {
                let id = io.next_waiter_id();
                io.wait(fd, direction, id, cx.waker())?;
                readiness.state = ReadinessState::Waiting { io, id };
                return Poll::Pending;
            }
            Pin::new(&mut readiness).poll(cx)
        })
    }

    /// The fd this future waits on.
    pub fn fd(&self) -> RawFd {
        self.fd
    }

    /// The direction this future waits for.
    pub fn direction(&self) -> Direction {
        self.direction
    }
}

// ANCHOR: readiness_drop
impl Drop for Readiness {
    /// A future dropped while waiting (cancelled, say by a timeout) takes its waker out
    /// of the fd's slot, and the fd's interest with it if nothing else needs it.
    fn drop(&mut self) {
        if let ReadinessState::Waiting { io, id } = &self.state {
            io.cancel_wait(self.fd, self.direction, *id);
        }
    }
}
// ANCHOR_END: readiness_drop

/// The error a readiness future gives when polled after it returned `Ready`.
pub(crate) fn polled_after_ready() -> io::Error {
    io::Error::other("a readiness future was polled after it returned Ready")
}
