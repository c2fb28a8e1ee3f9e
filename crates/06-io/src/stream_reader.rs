//! `StreamReader`: a buffer in front of a byte stream (asyncio's `StreamReader`).
//!
//! Sockets hand over whatever has arrived, which is rarely one whole record. The reader
//! keeps what it has read in its own buffer, so that `read_line` can wait for the end of
//! a line and `read_exact` for the last byte of a frame.
//!
//! Cancellation: every method of the reader keeps what it read in the reader's buffer
//! until it returns it. A `read_line` or `read_exact` dropped half-way (by a timeout,
//! say) loses nothing: the bytes it had gathered wait in the buffer for the next call.

use std::error::Error;
use std::fmt;
use std::io;
use std::rc::Rc;

use crate::TcpStream;

/// asyncio's default limit for one line or one record: 64 KiB.
pub const DEFAULT_LIMIT: usize = 64 * 1024;

/// How many bytes one read from the stream asks for: 8 KiB. asyncio's socket transport
/// asks `recv` for up to 256 KiB (its `max_size`) into a new buffer each time; a reader
/// here keeps its read buffer for as long as it lives, so it keeps it small. The price
/// is turns: at one read per stream per turn, a big record takes one read per 8 KiB.
const CHUNK: usize = 8 * 1024;

// ANCHOR: async_read
/// A byte stream that can be read asynchronously.
///
/// `async fn` in a trait gives a future with no `Send` bound; on a single-threaded loop
/// that is exactly what is wanted.
#[allow(async_fn_in_trait)]
pub trait AsyncRead {
    /// Reads some bytes into `buf`; `Ok(0)` means end of file. Must be cancel-safe:
    /// dropped before completion, it must not have consumed anything.
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
}
// ANCHOR_END: async_read

impl AsyncRead for TcpStream {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        TcpStream::read(self, buf).await
    }
}

impl AsyncRead for Rc<TcpStream> {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        TcpStream::read(self, buf).await
    }
}

// ANCHOR: stream_error
/// Why a read from a [`StreamReader`] (or a drain of a writer) failed.
#[derive(Debug)]
pub enum StreamError {
    /// The stream itself failed (reset by the peer, for instance).
    Io(io::Error),
    /// No delimiter within `limit` bytes (asyncio's `LimitOverrunError`). Nothing was
    /// taken out of the buffer: `buffered` bytes are still there to read or discard.
    LimitOverrun {
        /// The reader's limit.
        limit: usize,
        /// How many bytes are buffered.
        buffered: usize,
    },
    /// End of file before the record was complete (asyncio's `IncompleteReadError`).
    /// The partial record is carried here, taken out of the buffer.
    Incomplete {
        /// The bytes read before end of file.
        partial: Vec<u8>,
        /// How many bytes were expected (`None`: up to a delimiter).
        expected: Option<usize>,
    },
    /// A line was not UTF-8. The whole line, delimiter included, is carried here.
    InvalidUtf8 {
        /// The line as it was received.
        line: Vec<u8>,
        /// How many bytes of it are valid UTF-8.
        valid_up_to: usize,
    },
}
// ANCHOR_END: stream_error

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Io(error) => write!(f, "stream error: {error}"),
            StreamError::LimitOverrun { limit, buffered } => write!(
                f,
                "no delimiter within the limit of {limit} bytes ({buffered} bytes buffered, \
                 none lost)"
            ),
            StreamError::Incomplete {
                partial,
                expected: Some(n),
            } => write!(
                f,
                "incomplete read: end of file after {} of {n} bytes",
                partial.len()
            ),
            StreamError::Incomplete {
                partial,
                expected: None,
            } => write!(
                f,
                "incomplete read: end of file after {} bytes and no delimiter",
                partial.len()
            ),
            StreamError::InvalidUtf8 { line, valid_up_to } => write!(
                f,
                "a line of {} bytes is not UTF-8 (valid up to byte {valid_up_to})",
                line.len()
            ),
        }
    }
}

impl Error for StreamError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            StreamError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for StreamError {
    fn from(error: io::Error) -> Self {
        StreamError::Io(error)
    }
}

// ANCHOR: stream_reader
/// A buffered reader over a byte stream `R`.
pub struct StreamReader<R> {
    inner: R,
    buffer: Vec<u8>,
    scratch: Box<[u8]>,
    limit: usize,
    eof: bool,
}
// ANCHOR_END: stream_reader

impl<R> fmt::Debug for StreamReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamReader")
            .field("buffered", &self.buffer.len())
            .field("limit", &self.limit)
            .field("eof", &self.eof)
            .finish_non_exhaustive()
    }
}

impl<R: AsyncRead> StreamReader<R> {
    /// A reader over `inner` with the default limit of 64 KiB.
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, DEFAULT_LIMIT)
    }

    /// A reader whose `read_line` and `read_until` refuse records longer than `limit`.
    pub fn with_limit(inner: R, limit: usize) -> Self {
        Self {
            inner,
            buffer: Vec::new(),
            scratch: vec![0; CHUNK].into_boxed_slice(),
            limit,
            eof: false,
        }
    }

    /// The limit of one record.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes read from the stream and not yet returned.
    pub fn buffered(&self) -> &[u8] {
        &self.buffer
    }

    /// Drops the first `n` buffered bytes (all of them if fewer are buffered).
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.buffer.len());
        self.buffer.drain(..n);
    }

    /// Takes the first `n` buffered bytes out (all of them if fewer are buffered).
    pub fn take(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.buffer.len());
        self.buffer.drain(..n).collect()
    }

    /// Whether the stream has reached end of file (buffered bytes may remain).
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// The stream under the buffer.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    // ANCHOR: fill_buf
    /// Reads once from the stream and appends what came to the buffer. Returns how many
    /// bytes came; 0 means end of file (and stays so).
    ///
    /// Cancel-safe: the bytes go from the stream to the buffer in one poll.
    pub async fn fill_buf(&mut self) -> io::Result<usize> {
        if self.eof {
            return Ok(0);
        }
        let n = self.inner.read(&mut self.scratch).await?;
        if n == 0 {
            self.eof = true;
        }
        self.buffer.extend_from_slice(&self.scratch[..n]);
        Ok(n)
    }
    // ANCHOR_END: fill_buf

    /// Returns up to `n` bytes: what is buffered, or else what one read brings (asyncio's
    /// `read(n)`). Empty at end of file.
    pub async fn read(&mut self, n: usize) -> io::Result<Vec<u8>> {
        if self.buffer.is_empty() {
            self.fill_buf().await?;
        }
        Ok(self.take(n))
    }

    /// Returns exactly `n` bytes (asyncio's `readexactly`). End of file first is
    /// [`StreamError::Incomplete`] carrying what was there.
    pub async fn read_exact(&mut self, n: usize) -> Result<Vec<u8>, StreamError> {
        while self.buffer.len() < n {
            if self.fill_buf().await? == 0 {
                return Err(StreamError::Incomplete {
                    partial: self.take(usize::MAX),
                    expected: Some(n),
                });
            }
        }
        Ok(self.take(n))
    }

    /// The overrun error for the buffer as it is (nothing is taken out).
    pub fn overrun(&self) -> StreamError {
        StreamError::LimitOverrun {
            limit: self.limit,
            buffered: self.buffer.len(),
        }
    }
}
