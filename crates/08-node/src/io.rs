//! The poller under the poll phase: mio's `Poll` (epoll on Linux) and the watches by
//! token.
//!
//! libuv's `uv__io_poll` waits in `epoll_wait` and runs each ready watcher's callback
//! right there, in the poll phase. oneloop keeps a map from mio [`Token`]s to watches
//! (`watch.rs`) and does the same, in two steps: [`Io::poll`] takes the ready watches
//! out of the map while the poller is borrowed, and the loop runs their callbacks after
//! the borrow ends, then hands each back with [`Io::after_fire`].
//!
//! A failed `epoll_ctl` while a batch is out of the map (a one-shot request's
//! deregistration, a handle's re-arm on a descriptor its callback closed) does not end
//! the batch: each of its watches is out of the map until it fires and is handed back,
//! so one left unfired would be lost. The watch that failed is dropped, the batch goes
//! on, and the first such error is kept: it keeps the loop alive to the next poll,
//! which returns it. (libuv's epoll backend, in `uv__io_poll`, calls `abort()` when
//! it cannot change a watcher's events.)

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use mio::{Events, Interest, Poll, Token, Waker};

use crate::queues::Job;
use crate::watch::{WatchId, Watched};

/// The token of the waker another thread uses to interrupt the poll.
pub(crate) const WAKE_TOKEN: Token = Token(usize::MAX);

/// A watch's state: waiting for an event, or out of the map while its callback runs.
enum Slot {
    Armed {
        watched: Box<dyn Watched>,
        interest: Interest,
    },
    /// The callback is running; `close` holds the close callback if it asked to close.
    Firing { close: Option<Job> },
}

// ANCHOR: io
/// The poller: mio's `Poll`, its event buffer, and the watches by token.
pub(crate) struct Io {
    poll: Poll,
    events: Events,
    slots: HashMap<Token, Slot>,
    next_token: usize,
    waker: Arc<Waker>,
    /// The first `epoll_ctl` failure of a batch, for the next poll to return.
    failed: Option<io::Error>,
}
// ANCHOR_END: io

impl fmt::Debug for Io {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Io")
            .field("watches", &self.slots.len())
            .finish_non_exhaustive()
    }
}

/// Keeps `outcome`'s error in `failed`, if it is the batch's first, for the next poll.
fn keep_first_failure(failed: &mut Option<io::Error>, outcome: io::Result<()>) {
    if let Err(error) = outcome {
        failed.get_or_insert(error);
    }
}

/// What a ready token asks the loop to do, decided with the poller borrowed and done
/// after the borrow ends.
pub(crate) enum Ready {
    /// Run this watch's callback, then hand it back with [`Io::after_fire`].
    Fire(Token, Box<dyn Watched>, Interest),
    /// Another thread woke the loop.
    ForeignWake,
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ready::Fire(token, ..) => write!(f, "Fire({token:?})"),
            Ready::ForeignWake => f.write_str("ForeignWake"),
        }
    }
}

impl Io {
    pub(crate) fn new() -> io::Result<Self> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKE_TOKEN)?);
        Ok(Self {
            poll,
            events: Events::with_capacity(256),
            slots: HashMap::new(),
            next_token: 0,
            waker,
            failed: None,
        })
    }

    /// The waker another thread may use to interrupt the poll.
    pub(crate) fn waker(&self) -> Arc<Waker> {
        Arc::clone(&self.waker)
    }

    /// How many watches are registered (each keeps the loop alive), and one more for a
    /// failure kept for the next poll (so that the loop comes to that poll).
    pub(crate) fn len(&self) -> usize {
        self.slots.len() + usize::from(self.failed.is_some())
    }

    pub(crate) fn add(
        &mut self,
        mut watched: Box<dyn Watched>,
        interest: Interest,
    ) -> io::Result<WatchId> {
        let token = Token(self.next_token);
        self.next_token += 1;
        watched.register(self.poll.registry(), token, interest)?;
        self.slots.insert(token, Slot::Armed { watched, interest });
        Ok(WatchId(token.0))
    }

    // ANCHOR: io_poll
    /// Waits up to `timeout` for events, then takes every ready watch out of the map.
    /// The callbacks run later, with no borrow of the poller held.
    ///
    /// A failure kept from the last batch is returned first, with no wait.
    pub(crate) fn poll(&mut self, timeout: Option<Duration>) -> io::Result<Vec<Ready>> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        loop {
            match self.poll.poll(&mut self.events, timeout) {
                Ok(()) => break,
                // A signal interrupted epoll_wait: libuv retries, and so do we.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        let mut ready = Vec::new();
        for event in self.events.iter() {
            let token = event.token();
            if token == WAKE_TOKEN {
                ready.push(Ready::ForeignWake);
                continue;
            }
            // A token may come twice in one batch, or after its watch was closed.
            if let Some(Slot::Armed { .. }) = self.slots.get(&token)
                && let Some(Slot::Armed {
                    mut watched,
                    interest,
                }) = self.slots.insert(token, Slot::Firing { close: None })
            {
                // The request fires even if this fails: it is out of the map now.
                if watched.one_shot() {
                    let outcome = watched.deregister(self.poll.registry());
                    keep_first_failure(&mut self.failed, outcome);
                }
                ready.push(Ready::Fire(token, watched, interest));
            }
        }
        Ok(ready)
    }
    // ANCHOR_END: io_poll

    /// After a callback ran: a used-up request is deregistered and handed back to be
    /// dropped; a handle is re-armed, unless its callback asked to close it (then it is
    /// handed back too, with its close callback for the close phase).
    ///
    /// This does not fail (the `Result` is the loop's contract with the poll phase): a
    /// handle that cannot be re-armed is handed back to be dropped, as if closed, and
    /// the error waits for the next poll, so the rest of the batch still fires.
    pub(crate) fn after_fire(
        &mut self,
        token: Token,
        mut watched: Box<dyn Watched>,
        interest: Interest,
        keep: bool,
    ) -> io::Result<Closed> {
        let close = match self.slots.remove(&token) {
            Some(Slot::Firing { close }) => close,
            _ => None,
        };
        let registry = self.poll.registry();
        if keep && close.is_none() {
            match watched.reregister(registry, token, interest) {
                Ok(()) => {
                    self.slots.insert(token, Slot::Armed { watched, interest });
                    return Ok(Closed::default());
                }
                Err(error) => keep_first_failure(&mut self.failed, Err(error)),
            }
        } else {
            let outcome = watched.deregister(registry);
            keep_first_failure(&mut self.failed, outcome);
        }
        Ok(Closed {
            on_close: close,
            watched: Some(watched),
            extra: None,
        })
    }

    /// Closes `id`: an armed watch is deregistered and handed back to be dropped; a
    /// firing one is marked, and closed when its callback returns.
    pub(crate) fn close(&mut self, id: WatchId, on_close: Job) -> io::Result<Closed> {
        let token = Token(id.0);
        match self.slots.remove(&token) {
            Some(Slot::Armed { mut watched, .. }) => {
                watched.deregister(self.poll.registry())?;
                Ok(Closed {
                    on_close: Some(on_close),
                    watched: Some(watched),
                    extra: None,
                })
            }
            Some(Slot::Firing { close }) => {
                // A second close keeps the first close callback, and drops this one
                // (later, outside the borrow).
                let (kept, extra) = match close {
                    Some(first) => (first, Some(on_close)),
                    None => (on_close, None),
                };
                self.slots.insert(token, Slot::Firing { close: Some(kept) });
                Ok(Closed {
                    on_close: None,
                    watched: None,
                    extra,
                })
            }
            // Already gone (a request that fired): the close callback still runs.
            None => Ok(Closed {
                on_close: Some(on_close),
                watched: None,
                extra: None,
            }),
        }
    }
}

/// What closing left: a close callback for the close phase, and a watch to drop once
/// no borrow is held (dropping a source or a callback may run arbitrary code).
#[derive(Default)]
pub(crate) struct Closed {
    pub(crate) on_close: Option<Job>,
    pub(crate) watched: Option<Box<dyn Watched>>,
    pub(crate) extra: Option<Job>,
}
