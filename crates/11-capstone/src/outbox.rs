//! A client's output buffer: replies and messages waiting for its writer task.
//!
//! Every connection has two tasks. Its reader parses requests and runs them; the
//! replies go here, and so do the messages `PUBLISH` sends to a subscriber.
//!
//! Two ways lead from here to the socket. When the reader has run every request of
//! one read, it writes their replies itself, as far as the socket takes them without
//! blocking: one `send` for the batch, in the same step. The connection's writer task
//! takes the rest: what the socket would not take yet, and messages published to the
//! client while its reader waits for requests.
//!
//! The buffer is bounded. A client that stops reading fills its socket's kernel
//! buffers first, then this one. Past the bound the client is disconnected, as Redis
//! disconnects a client over its `client-output-buffer-limit`: a subscriber that
//! cannot keep up must not make the server hold every message for it. A client that
//! pipelines requests faster than it reads replies is slowed down before that: its
//! reader stops parsing while the buffer is above a high-water mark.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::io;
use std::net::Shutdown;
use std::rc::Rc;
use std::task::{Poll, Waker};

use oneloop::TcpStream;

use crate::Frame;

/// The most room [`Outbox::push`] keeps for encoding between pushes, in bytes.
const SCRATCH_KEPT: usize = 4096;

/// Why a client's output stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// The connection is ending: write what is buffered, then stop.
    Flush,
    /// The buffer passed its bound: drop what is buffered and disconnect.
    Overflow,
    /// Writing failed (the peer is gone).
    Failed,
}

/// One client's output buffer.
#[derive(Debug)]
pub struct Outbox {
    pub(crate) stream: Rc<TcpStream>,
    pub(crate) buffered: RefCell<Vec<u8>>,
    /// Bytes the writer took and has not finished writing.
    pub(crate) in_flight: Cell<usize>,
    pub(crate) limit: usize,
    pub(crate) closed: Cell<Option<Closed>>,
    pub(crate) writer: RefCell<Option<Waker>>,
    pub(crate) reader: RefCell<Option<Waker>>,
    /// Set while the client's reader runs a batch of requests: it writes their
    /// replies itself at the end, so a push need not wake the writer.
    batching: Cell<bool>,
    /// Where [`push`](Self::push) encodes a frame before queuing its bytes: kept
    /// between pushes, so a reply costs no allocation.
    scratch: RefCell<Vec<u8>>,
}

impl Outbox {
    /// An empty buffer for `stream`, bounded at `limit` bytes.
    pub fn new(stream: Rc<TcpStream>, limit: usize) -> Rc<Outbox> {
        Rc::new(Outbox {
            stream,
            buffered: RefCell::new(Vec::new()),
            in_flight: Cell::new(0),
            limit,
            closed: Cell::new(None),
            writer: RefCell::new(None),
            reader: RefCell::new(None),
            batching: Cell::new(false),
            scratch: RefCell::new(Vec::new()),
        })
    }

    /// Bytes waiting, the writer's current chunk included.
    pub fn pending(&self) -> usize {
        self.buffered.borrow().len() + self.in_flight.get()
    }

    /// The bound, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Why output stopped, if it did.
    pub fn closed(&self) -> Option<Closed> {
        self.closed.get()
    }

    // ANCHOR: push
    /// Queues `frame`, a reply of the client's own, for the writer. A reply is queued
    /// past the bound too: a client that reads gets every reply, however big, as Redis
    /// sets no output limit on an ordinary client. A client that does not read is
    /// paused before its next request instead (see `connection.rs`), so the most it
    /// queues past the bound is the replies of one read. Returns `false` once the
    /// output is closed.
    pub fn push(&self, frame: &Frame) -> bool {
        self.push_with(|bytes| frame.encode(bytes))
    }

    /// Queues what `encode` appends to an empty buffer, as [`push`](Self::push)
    /// does with a frame: a reply encoded from bytes that someone else owns (`GET`
    /// encodes from the store) costs no copy of its own.
    pub fn push_with(&self, encode: impl FnOnce(&mut Vec<u8>)) -> bool {
        let mut bytes = self.scratch.take();
        bytes.clear();
        encode(&mut bytes);
        let queued = self.push_reply(&bytes);
        // A big reply's room is not kept: a quiet client holds a small buffer.
        if bytes.capacity() <= SCRATCH_KEPT {
            self.scratch.replace(bytes);
        }
        queued
    }
    // ANCHOR_END: push

    /// Queues bytes of a reply already encoded, as [`push`](Self::push) does: past the
    /// bound too. A message for a subscriber goes through
    /// [`push_bytes`](Self::push_bytes), which keeps the bound.
    pub fn push_reply(&self, bytes: &[u8]) -> bool {
        if self.closed.get().is_some() {
            return false;
        }
        self.buffered.borrow_mut().extend_from_slice(bytes);
        self.wake_writer();
        true
    }

    /// Ends the output: the writer writes what is buffered, then stops.
    pub fn close(&self) {
        self.batching.set(false);
        if self.closed.get().is_none() {
            self.closed.set(Some(Closed::Flush));
        }
        wake(&self.writer);
    }

    /// Wakes the writer task, unless the reader is in a batch and will write the
    /// replies itself when it ends ([`end_batch`](Self::end_batch)).
    pub fn wake_writer(&self) {
        if !self.batching.get() {
            wake(&self.writer);
        }
    }

    // ANCHOR: batch
    /// The reader starts running the requests of one read: pushes until
    /// [`end_batch`](Self::end_batch) do not wake the writer.
    pub fn begin_batch(&self) {
        self.batching.set(true);
    }

    /// The reader ran its batch: it writes the replies now, in its own step, as far
    /// as the socket takes them without blocking (one `send` for the whole batch, no
    /// hop through the writer task). Whatever the socket does not take, and anything
    /// while the writer is busy with a chunk of its own, is left to the writer.
    pub fn end_batch(&self) {
        self.batching.set(false);
        if self.closed.get().is_some() || self.in_flight.get() > 0 {
            wake(&self.writer);
            return;
        }
        let mut buffered = self.buffered.borrow_mut();
        let mut written = 0;
        while written < buffered.len() {
            match self.stream.try_write(&buffered[written..]) {
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Full: the writer waits for room and sends the rest.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                // The peer is gone: the writer ends, and so does the reader.
                Err(_) => {
                    self.closed.set(Some(Closed::Failed));
                    break;
                }
            }
        }
        buffered.drain(..written);
        let left = !buffered.is_empty() || self.closed.get().is_some();
        drop(buffered);
        if left {
            wake(&self.writer);
        }
        if self.closed.get().is_some() {
            wake(&self.reader);
        }
    }
    // ANCHOR_END: batch

    /// Waits until fewer than `mark` bytes are pending, or the output is closed.
    pub async fn below(&self, mark: usize) {
        poll_fn(|cx| {
            if self.pending() < mark || self.closed.get().is_some() {
                return Poll::Ready(());
            }
            *self.reader.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
    }

    /// The next chunk for the writer: `None` when there is nothing more to write.
    async fn next_chunk(&self) -> Option<Vec<u8>> {
        poll_fn(|cx| {
            let closed = self.closed.get();
            if matches!(closed, Some(Closed::Overflow | Closed::Failed)) {
                return Poll::Ready(None);
            }
            let chunk = std::mem::take(&mut *self.buffered.borrow_mut());
            if !chunk.is_empty() {
                self.in_flight.set(chunk.len());
                return Poll::Ready(Some(chunk));
            }
            if closed == Some(Closed::Flush) {
                return Poll::Ready(None);
            }
            *self.writer.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    // ANCHOR: write_loop
    /// The writer task's body: writes chunks until the output is closed and empty,
    /// then shuts the socket's write half (the peer reads end of file).
    pub async fn write_loop(self: Rc<Self>) {
        while let Some(chunk) = self.next_chunk().await {
            let written = self.stream.write_all(&chunk).await;
            self.in_flight.set(0);
            wake(&self.reader);
            if written.is_err() {
                self.closed.set(Some(Closed::Failed));
                break;
            }
        }
        // The peer may be gone already; then there is nothing to shut.
        let _ = self.stream.shutdown(Shutdown::Write);
    }
    // ANCHOR_END: write_loop
}

pub(crate) fn wake(slot: &RefCell<Option<Waker>>) {
    // Taken out first: waking runs no user code, but no borrow is held regardless.
    let waker = slot.borrow_mut().take();
    if let Some(waker) = waker {
        waker.wake();
    }
}
