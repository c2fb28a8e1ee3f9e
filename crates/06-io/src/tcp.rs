//! Async TCP: a listener that accepts and a stream that reads and writes.
//!
//! Every operation has the same shape, asyncio's `sock_recv` and `sock_accept` in
//! Rust: try the non-blocking syscall; if it says `WouldBlock`, await a one-shot
//! [`Readiness`](crate::Readiness) future for that direction and try again. The loop
//! around the syscall is what makes spurious wakeups harmless: a wake that finds
//! nothing to read just leads to one more `WouldBlock` and one more wait.
//!
//! Reads have one more rule, for fairness: a stream gives at most one successful read
//! per turn of the loop. A peer that always has data would otherwise keep its task
//! reading for ever, since the syscall never says `WouldBlock`; see
//! [`TcpStream::read`].

use std::cell::Cell;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

use oneloop_core::hooks::{LoopId, with_current};
use oneloop_core::yield_now;

use crate::source::Owned;
use crate::{ACCEPT_RETRY_DELAY, Direction, Readiness, writable};

// ANCHOR: retry
/// Runs `attempt` until it does not say `WouldBlock`, awaiting readiness in
/// `direction` between tries. `Interrupted` is retried at once. `waited` is set if it
/// awaited at all (the loop may then be in a later turn).
///
/// A `WouldBlock` tells the table that the socket is empty in that direction, so the
/// wait that follows needs no `epoll_ctl` once the fd is registered (see `waits.rs`).
async fn retry<S: AsRawFd, T>(
    socket: &Owned<S>,
    direction: Direction,
    waited: &mut bool,
    mut attempt: impl FnMut() -> io::Result<T>,
) -> io::Result<T> {
    loop {
        match attempt() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                *waited = true;
                let fd = socket.as_raw_fd();
                match socket.note_drained(direction) {
                    // The table is known: the wait's first poll need not look for it.
                    Some(io) => Readiness::in_table(io, fd, direction).await?,
                    None => Readiness::new(fd, direction).await?,
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}
// ANCHOR_END: retry

/// A TCP socket listening for connections (what `asyncio.start_server` binds).
///
/// Not `Send`, for the same reason as [`TcpStream`]: dropping it edits the I/O table of
/// its loop, which lives on the loop's thread.
///
/// ```compile_fail,E0277
/// fn a_tcp_listener_is_not_send() {
///     fn send<T: Send>() {}
///     send::<oneloop_io::TcpListener>();
/// }
/// ```
pub struct TcpListener {
    inner: Owned<mio::net::TcpListener>,
    /// How long [`serve`](crate::serve) stops accepting after an accept failed for lack
    /// of resources.
    retry_delay: Duration,
}

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpListener")
            .field("fd", &self.inner.as_raw_fd())
            .field("addr", &self.inner.local_addr().ok())
            .finish()
    }
}

impl TcpListener {
    /// Binds a listening socket to the first address of `addr` that works. Port 0 lets
    /// the kernel choose (read it back with [`local_addr`](Self::local_addr)).
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<Self> {
        let mut last = io::Error::new(io::ErrorKind::InvalidInput, "no address to bind");
        for addr in addr.to_socket_addrs()? {
            match mio::net::TcpListener::bind(addr) {
                Ok(inner) => {
                    return Ok(Self {
                        inner: inner.into(),
                        retry_delay: ACCEPT_RETRY_DELAY,
                    });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Wraps a std listener (made non-blocking here).
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<Self> {
        listener.set_nonblocking(true)?;
        Ok(Self {
            inner: mio::net::TcpListener::from_std(listener).into(),
            retry_delay: ACCEPT_RETRY_DELAY,
        })
    }

    /// Sets how long [`serve`](crate::serve) stops accepting on this listener after an
    /// accept failed for lack of resources: [`ACCEPT_RETRY_DELAY`], asyncio's second,
    /// unless set. A server's tests set it shorter, so as not to wait whole seconds.
    pub fn with_accept_retry_delay(mut self, delay: Duration) -> Self {
        self.retry_delay = delay;
        self
    }

    /// How long [`serve`](crate::serve) stops accepting on this listener after an
    /// accept failed for lack of resources.
    pub fn accept_retry_delay(&self) -> Duration {
        self.retry_delay
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    // ANCHOR: accept
    /// Accepts one connection, waiting until one arrives.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (inner, addr) = retry(&self.inner, Direction::Read, &mut false, || {
            self.inner.accept()
        })
        .await?;
        Ok((TcpStream::wrap(inner), addr))
    }
    // ANCHOR_END: accept
}

impl AsRawFd for TcpListener {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

/// A connected TCP socket.
///
/// Its methods take `&self`, so one task may read while another writes (share it with
/// an `Rc`). Two tasks reading at once is an error on the second one's wait, as in
/// asyncio: there is one slot per direction.
///
/// # Not `Send`
///
/// A stream stays on the thread of the loop it belongs to. Its registrations live in
/// that loop's I/O table, an `Rc` with `RefCell`s inside that only the loop's thread
/// may touch, and dropping the stream removes them from it (see "Who owns a
/// registration" in chapter 6.3). The stream keeps a weak reference to that table, so
/// the compiler refuses to move it to another thread, where its drop would edit the
/// table behind the loop's back:
///
/// ```compile_fail,E0277
/// fn a_tcp_stream_is_not_send() {
///     fn send<T: Send>() {}
///     send::<oneloop_io::TcpStream>();
/// }
/// ```
///
/// The same check passes for a std socket, which no loop owns: to hand a connection to
/// another thread, hand it over before it becomes a `TcpStream`, and make one with
/// [`from_std`](Self::from_std) on the thread of the loop that will serve it.
///
/// ```
/// fn send<T: Send>() {}
/// send::<std::net::TcpStream>();
/// ```
pub struct TcpStream {
    inner: Owned<mio::net::TcpStream>,
    /// The loop and turn of the last successful [`read`](TcpStream::read).
    last_read: Cell<Option<(LoopId, u64)>>,
    /// Whether that read came back short: it took all the data there was.
    last_read_emptied: Cell<bool>,
}

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpStream")
            .field("fd", &self.inner.as_raw_fd())
            .field("local", &self.inner.local_addr().ok())
            .field("peer", &self.inner.peer_addr().ok())
            .finish()
    }
}

impl TcpStream {
    fn wrap(inner: mio::net::TcpStream) -> Self {
        Self {
            inner: inner.into(),
            last_read: Cell::new(None),
            last_read_emptied: Cell::new(false),
        }
    }

    // ANCHOR: connect
    /// Connects to `addr` (asyncio's `sock_connect`).
    ///
    /// The non-blocking `connect` returns at once; the socket becomes writable when
    /// the handshake ends, either way. Then `take_error` says whether it failed, and
    /// `peer_addr` confirms it is connected.
    pub async fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
        let inner = mio::net::TcpStream::connect(addr)?;
        loop {
            writable(&inner).await?;
            if let Some(error) = inner.take_error()? {
                return Err(error);
            }
            match inner.peer_addr() {
                Ok(_) => return Ok(TcpStream::wrap(inner)),
                // Not connected yet: the wake was early; wait again.
                Err(e) if e.kind() == io::ErrorKind::NotConnected => {}
                Err(e) => return Err(e),
            }
        }
    }
    // ANCHOR_END: connect

    /// Wraps a connected std stream (made non-blocking here).
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<Self> {
        stream.set_nonblocking(true)?;
        Ok(Self::wrap(mio::net::TcpStream::from_std(stream)))
    }

    // ANCHOR: read
    /// Reads some bytes into `buf`, waiting until at least one byte (or end of file,
    /// `Ok(0)`) is there.
    ///
    /// Fair: a stream gives at most one successful read per turn. A read that follows
    /// another in the same turn first yields to the loop, so a busy stream is read once
    /// per turn, and every turn also polls the selector and runs what it made ready.
    /// asyncio's transports read the same way: one `recv` per readiness event, one
    /// event per turn. If that other read came back short, it took all the data: the
    /// read waits for readiness at once instead, with no `recv` that would most
    /// likely say `WouldBlock`. That wait needs no `epoll_ctl`, unless an event for the
    /// socket reported its read side closed (or an error): an end of file that came
    /// with the data is then queued already, with no edge to come, and the wait
    /// re-arms the fd (one `epoll_ctl`) so that epoll reports it.
    ///
    /// Cancel-safe: dropping the future before it completes loses no data, since bytes
    /// leave the kernel only in the syscall that returns them.
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let now = with_current(|core| (core.id(), core.turn()));
        let mut waited = false;
        if now.is_some() && self.last_read.get() == now {
            waited = true;
            if self.last_read_emptied.get() {
                // A short read took the data: wait for readiness, no `recv` first. The
                // fd is re-armed if an end of file may be queued already.
                let fd = self.inner.as_raw_fd();
                match self.inner.note_short_read() {
                    Some(io) => Readiness::in_table(io, fd, Direction::Read).await?,
                    None => Readiness::new(fd, Direction::Read).await?,
                }
            } else {
                yield_now().await;
            }
        }
        let n = retry(&self.inner, Direction::Read, &mut waited, || {
            (&self.inner).read(buf)
        })
        .await?;
        let emptied = n > 0 && n < buf.len();
        if emptied {
            // A short read took the data. Unless an event said the read side closed (an
            // end of file may have come with the data, its edge taken with the data's),
            // the next wait needs no `epoll_ctl`.
            let _table = self.inner.note_short_read();
        }
        self.last_read_emptied.set(emptied);
        // With no await since `now`, the loop is still in that turn: no second look-up.
        self.last_read.set(if waited {
            with_current(|core| (core.id(), core.turn()))
        } else {
            now
        });
        Ok(n)
    }
    // ANCHOR_END: read

    /// Writes some bytes of `buf`, waiting until the kernel takes at least one.
    pub async fn write(&self, buf: &[u8]) -> io::Result<usize> {
        retry(&self.inner, Direction::Write, &mut false, || {
            (&self.inner).write(buf)
        })
        .await
    }

    /// Writes all of `buf`. If dropped half-way, some prefix of `buf` was sent and the
    /// caller cannot know how much: use a [`StreamWriter`](crate::StreamWriter) when
    /// that matters.
    pub async fn write_all(&self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let n = self.write(buf).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            buf = &buf[n..];
        }
        Ok(())
    }

    /// One non-blocking read: `WouldBlock` if nothing is there. A `WouldBlock` proves
    /// the socket empty, with no end of file queued: a wait that follows (`readable`)
    /// then finds the fd registered and gives epoll nothing.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.noting_would_block(Direction::Read, (&self.inner).read(buf))
    }

    /// One non-blocking write: `WouldBlock` if the send buffer is full (a wait that
    /// follows, `writable`, then gives epoll nothing, as after `try_read`).
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.noting_would_block(Direction::Write, (&self.inner).write(buf))
    }

    /// Hands `outcome` back, first telling the table if it was `WouldBlock`: the
    /// socket is drained in `direction`.
    fn noting_would_block(
        &self,
        direction: Direction,
        outcome: io::Result<usize>,
    ) -> io::Result<usize> {
        if outcome
            .as_ref()
            .is_err_and(|error| error.kind() == io::ErrorKind::WouldBlock)
        {
            let _table = self.inner.note_drained(direction);
        }
        outcome
    }

    /// Shuts down one or both halves (`Shutdown::Write` is asyncio's `write_eof`: the
    /// peer reads end of file once it has read everything sent before).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.inner.shutdown(how)
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }

    /// Sets `TCP_NODELAY` (no Nagle delay for small writes).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.inner.set_nodelay(nodelay)
    }
}

impl AsRawFd for TcpStream {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}
