//! Watches: what the poll phase waits on, and the functions that register them.
//!
//! Two kinds of watch:
//!
//! - [`once_ready`]: a request. Its callback runs once, with the source handed back,
//!   and the watch is gone — like the completion of `fs.readFile`.
//! - [`watch`]: a handle. Its callback runs on every event until [`close`] — like a
//!   socket with a `data` listener. mio is edge-triggered, libuv's watchers
//!   level-triggered; the watch re-arms (reregisters) after each callback, so data left
//!   unread makes it fire again, as it would in libuv.
//!
//! Either keeps the loop alive while it is registered, as an active libuv handle or
//! request does.

use std::io;

use mio::event::Source;
use mio::{Interest, Registry, Token};

use crate::inner::current;

/// Which watch: what [`once_ready`] and [`watch`] return, and [`close`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WatchId(pub(crate) usize);

/// A source with its callback, type-erased.
pub(crate) trait Watched {
    /// The source, while the watch holds it (a request hands it to its callback).
    fn source(&mut self) -> Option<&mut dyn Source>;
    /// Runs the callback. Returns `false` once the watch is used up (a request).
    fn fire(&mut self) -> bool;
    /// Whether the callback runs once (then the source is deregistered before it runs,
    /// since the callback takes it).
    fn one_shot(&self) -> bool;

    // A request whose callback took its source has nothing left to (de)register.
    fn register(
        &mut self,
        registry: &Registry,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        self.source()
            .map_or(Ok(()), |source| registry.register(source, token, interest))
    }
    fn deregister(&mut self, registry: &Registry) -> io::Result<()> {
        self.source()
            .map_or(Ok(()), |source| registry.deregister(source))
    }
    fn reregister(
        &mut self,
        registry: &Registry,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        self.source().map_or(Ok(()), |source| {
            registry.reregister(source, token, interest)
        })
    }
}

struct Request<S, F> {
    source: Option<S>,
    callback: Option<F>,
}

impl<S: Source, F: FnOnce(S)> Watched for Request<S, F> {
    fn source(&mut self) -> Option<&mut dyn Source> {
        self.source.as_mut().map(|source| source as &mut dyn Source)
    }
    fn fire(&mut self) -> bool {
        if let (Some(source), Some(callback)) = (self.source.take(), self.callback.take()) {
            callback(source);
        }
        false
    }
    fn one_shot(&self) -> bool {
        true
    }
}

struct Handle<S, F> {
    source: S,
    callback: F,
}

impl<S: Source, F: FnMut(&mut S)> Watched for Handle<S, F> {
    fn source(&mut self) -> Option<&mut dyn Source> {
        Some(&mut self.source)
    }
    fn fire(&mut self) -> bool {
        (self.callback)(&mut self.source);
        true
    }
    fn one_shot(&self) -> bool {
        false
    }
}

/// Registers `source` and runs `callback` once, in the poll phase, when it is ready for
/// `interest`; the source is deregistered first and handed to the callback. While it
/// waits, the loop stays alive (a libuv request).
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn once_ready<S: Source + 'static>(
    source: S,
    interest: Interest,
    callback: impl FnOnce(S) + 'static,
) -> io::Result<WatchId> {
    let inner = current("once_ready");
    let watched = Box::new(Request {
        source: Some(source),
        callback: Some(callback),
    });
    inner.io.borrow_mut().add(watched, interest)
}

/// Registers `source` and runs `callback` in the poll phase on every readiness event
/// for `interest`, until [`close`]. While it is open, the loop stays alive (an active
/// libuv handle).
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn watch<S: Source + 'static>(
    source: S,
    interest: Interest,
    callback: impl FnMut(&mut S) + 'static,
) -> io::Result<WatchId> {
    let inner = current("watch");
    let watched = Box::new(Handle { source, callback });
    inner.io.borrow_mut().add(watched, interest)
}

/// libuv's `uv_close`: stops watching `id` and queues `on_close` for the next close
/// phase, ahead of the close callbacks already queued (libuv runs the last handle
/// closed first). The source is dropped, which closes its file descriptor. Closing a request
/// that already fired still runs `on_close`; a watch closed from inside its own
/// callback is closed when that callback returns.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn close(id: WatchId, on_close: impl FnOnce() + 'static) -> io::Result<()> {
    let inner = current("close");
    let closed = inner.io.borrow_mut().close(id, Box::new(on_close))?;
    if let Some(job) = closed.on_close {
        inner.queue_close(job);
    }
    // The watch and any second close callback are dropped here, no borrow held.
    drop(closed.watched);
    drop(closed.extra);
    Ok(())
}
