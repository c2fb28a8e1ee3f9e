//! `StreamWriter`: buffered writes with flow control (asyncio's transport and
//! `StreamWriter` in one).
//!
//! `write` never waits. It sends what the kernel takes at once and keeps the rest in
//! a buffer, which a persistent writer callback (`add_writer`, as asyncio's
//! `_SelectorSocketTransport._write_ready`) sends whenever the socket is writable, and
//! removes once the buffer is empty.
//!
//! A writer faster than its peer would grow that buffer without bound, so it has two
//! water marks. Above the high mark the writer is *paused*: `drain().await` waits until
//! the callback has brought the buffer down to the low mark. Calling `drain` after
//! writes is what keeps memory bounded — exactly the asyncio idiom
//! `writer.write(data); await writer.drain()`.
//!
//! Cancellation: the bytes belong to the writer's buffer from the moment `write`
//! returns, and the callback keeps sending them whether or not anyone awaits. A `drain`
//! dropped half-way (by a timeout, say) loses nothing. Dropping the *writer* discards
//! what is still buffered: call [`flush`](StreamWriter::flush) or
//! [`shutdown`](StreamWriter::shutdown) first.

use std::cell::{OnceCell, RefCell};
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::rc::{Rc, Weak};
use std::task::{Poll, Waker};

use crate::{Io, StreamReader, TcpStream};

/// asyncio's default high-water mark for a socket transport: 64 KiB.
pub const DEFAULT_HIGH_WATER: usize = 64 * 1024;

/// asyncio's default low-water mark: a quarter of the high one.
pub const DEFAULT_LOW_WATER: usize = DEFAULT_HIGH_WATER / 4;

// ANCHOR: writer_state
/// What the writer and its callback share.
struct WriterState {
    buffer: Vec<u8>,
    high: usize,
    low: usize,
    /// Above the high mark, until the callback brings the buffer to the low mark.
    paused: bool,
    /// Whether the writer callback is installed.
    watching: bool,
    /// The first write error, kept: every later call reports it.
    error: Option<(io::ErrorKind, String)>,
    /// The task awaiting `drain` or `flush`.
    waker: Option<Waker>,
}
// ANCHOR_END: writer_state

struct Shared {
    stream: Rc<TcpStream>,
    io: OnceCell<Rc<Io>>,
    state: RefCell<WriterState>,
}

impl WriterState {
    fn failed(&self) -> Option<io::Error> {
        self.error
            .as_ref()
            .map(|(kind, message)| io::Error::new(*kind, message.clone()))
    }

    fn record(&mut self, error: &io::Error) {
        if self.error.is_none() {
            self.error = Some((error.kind(), error.to_string()));
        }
    }

    /// Sends what the kernel takes now. Stops at `WouldBlock`; records an error.
    fn send_buffered(&mut self, stream: &TcpStream) {
        while !self.buffer.is_empty() && self.error.is_none() {
            match stream.try_write(&self.buffer) {
                Ok(n) => {
                    self.buffer.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.record(&e),
            }
        }
    }
}

/// The buffered, flow-controlled writing half of a stream.
pub struct StreamWriter {
    shared: Rc<Shared>,
}

impl fmt::Debug for StreamWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.state.borrow();
        f.debug_struct("StreamWriter")
            .field("buffered", &state.buffer.len())
            .field("paused", &state.paused)
            .field("high", &state.high)
            .field("low", &state.low)
            .finish_non_exhaustive()
    }
}

impl StreamWriter {
    /// A writer on `stream` with asyncio's default water marks (64 KiB and 16 KiB).
    pub fn new(stream: Rc<TcpStream>) -> Self {
        Self {
            shared: Rc::new(Shared {
                stream,
                io: OnceCell::new(),
                state: RefCell::new(WriterState {
                    buffer: Vec::new(),
                    high: DEFAULT_HIGH_WATER,
                    low: DEFAULT_LOW_WATER,
                    paused: false,
                    watching: false,
                    error: None,
                    waker: None,
                }),
            }),
        }
    }

    /// Sets the water marks (asyncio's `set_write_buffer_limits`). Both are given here;
    /// `low` above `high` is capped at `high`, where asyncio raises `ValueError` (and,
    /// given only `high`, takes a quarter of it as `low`).
    pub fn set_write_buffer_limits(&mut self, high: usize, low: usize) {
        let mut state = self.shared.state.borrow_mut();
        state.high = high;
        state.low = low.min(high);
    }

    /// How many bytes wait in the buffer (asyncio's `get_write_buffer_size`).
    pub fn buffered(&self) -> usize {
        self.shared.state.borrow().buffer.len()
    }

    /// Whether the writer is paused (above the high mark, not yet down to the low one).
    pub fn is_paused(&self) -> bool {
        self.shared.state.borrow().paused
    }

    /// The stream under the writer.
    pub fn stream(&self) -> &Rc<TcpStream> {
        &self.shared.stream
    }

    // ANCHOR: write
    /// Queues `data` for sending and returns at once (asyncio's `writer.write`).
    ///
    /// With nothing buffered it first tries to send directly; what the kernel does not
    /// take is buffered and the writer callback installed. Fails only with an error an
    /// earlier send met (the peer reset the connection, for instance).
    pub fn write(&mut self, data: &[u8]) -> io::Result<()> {
        let install = {
            let mut state = self.shared.state.borrow_mut();
            if let Some(error) = state.failed() {
                return Err(error);
            }
            state.buffer.extend_from_slice(data);
            if !state.watching {
                state.send_buffered(&self.shared.stream);
            }
            if let Some(error) = state.failed() {
                return Err(error);
            }
            if state.buffer.len() > state.high {
                state.paused = true;
            }
            !state.buffer.is_empty() && !state.watching
        };
        if install {
            self.install()?;
        }
        Ok(())
    }
    // ANCHOR_END: write

    /// Installs the writer callback; it holds the shared state weakly.
    fn install(&self) -> io::Result<()> {
        let io = match self.shared.io.get() {
            Some(io) => Rc::clone(io),
            None => {
                let io = Io::current()?;
                Rc::clone(self.shared.io.get_or_init(|| io))
            }
        };
        let weak = Rc::downgrade(&self.shared);
        io.add_writer_named(&*self.shared.stream, "stream writer", move || {
            write_ready(&weak);
        })?;
        self.shared.state.borrow_mut().watching = true;
        Ok(())
    }

    // ANCHOR: drain
    /// Waits until it is fine to write more (asyncio's `drain`): at once if the writer
    /// is not paused, else until the buffer is down to the low mark. Reports a send
    /// error met in the background.
    pub async fn drain(&mut self) -> io::Result<()> {
        poll_fn(|cx| {
            let mut state = self.shared.state.borrow_mut();
            if let Some(error) = state.failed() {
                return Poll::Ready(Err(error));
            }
            if !state.paused {
                return Poll::Ready(Ok(()));
            }
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
    // ANCHOR_END: drain

    /// Waits until every buffered byte was handed to the kernel.
    pub async fn flush(&mut self) -> io::Result<()> {
        poll_fn(|cx| {
            let mut state = self.shared.state.borrow_mut();
            if let Some(error) = state.failed() {
                return Poll::Ready(Err(error));
            }
            if state.buffer.is_empty() {
                return Poll::Ready(Ok(()));
            }
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    /// Flushes, then shuts down the writing half (asyncio's `write_eof`): the peer reads
    /// end of file after the last byte.
    pub async fn shutdown(&mut self) -> io::Result<()> {
        self.flush().await?;
        self.shared.stream.shutdown(Shutdown::Write)
    }
}

// ANCHOR: write_ready
/// The writer callback: send what the kernel takes; stop watching once the buffer is
/// empty; resume a paused writer at the low mark; wake the task in `drain`/`flush`.
fn write_ready(weak: &Weak<Shared>) {
    let Some(shared) = weak.upgrade() else {
        return;
    };
    let waker = {
        let mut state = shared.state.borrow_mut();
        state.send_buffered(&shared.stream);
        let done = state.buffer.is_empty() || state.error.is_some();
        if done {
            if let Some(io) = shared.io.get() {
                io.remove_writer(&*shared.stream);
            }
            state.watching = false;
        }
        if state.paused && (state.buffer.len() <= state.low || state.error.is_some()) {
            state.paused = false;
        }
        if done || !state.paused {
            state.waker.take()
        } else {
            None
        }
    };
    // Woken with no borrow held: the wake queues the task's step.
    if let Some(waker) = waker {
        waker.wake();
    }
}
// ANCHOR_END: write_ready

impl Drop for StreamWriter {
    fn drop(&mut self) {
        let watching = self.shared.state.borrow().watching;
        if watching && let Some(io) = self.shared.io.get() {
            io.remove_writer(&*self.shared.stream);
        }
    }
}

impl TcpStream {
    /// Splits the stream into a buffered reader and a flow-controlled writer sharing
    /// the socket (what `asyncio.open_connection` returns).
    pub fn into_streams(self) -> (StreamReader<Rc<TcpStream>>, StreamWriter) {
        let stream = Rc::new(self);
        (
            StreamReader::new(Rc::clone(&stream)),
            StreamWriter::new(stream),
        )
    }
}

/// Connects to `addr` and returns its reader and writer (asyncio's `open_connection`).
pub async fn open_connection(
    addr: SocketAddr,
) -> io::Result<(StreamReader<Rc<TcpStream>>, StreamWriter)> {
    Ok(TcpStream::connect(addr).await?.into_streams())
}
