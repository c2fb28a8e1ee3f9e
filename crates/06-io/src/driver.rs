//! `IoDriver`: the innermost driver, where the loop's thread sleeps in `epoll_wait`.
//!
//! asyncio's `_run_once` calls `self._selector.select(timeout)` and hands the list it
//! gets to `_process_events`, which appends each ready fd's reader and writer handles
//! to `_ready`. Those are steps 3 and 4 of a turn. `IoDriver::park` is both: it sleeps
//! in `mio::Poll::poll(timeout)` — the only place the loop's thread ever blocks once
//! this driver is at the bottom of the stack — and then queues, in the order mio
//! reports the events, the persistent callbacks and the waiting tasks of every ready
//! fd.
//!
//! The events buffer is allocated once, with the driver, and reused by every turn.
//!
//! A thread unpark cannot end `epoll_wait`, so the driver registers a `mio::Waker`
//! (an eventfd on Linux, the modern form of asyncio's self-pipe) in its poll, and
//! sets an [`Unparker`] that writes to it on the loop's scheduler when it is installed.
//! Any thread may call it; the sleep ends, and the wake's own event is not counted as
//! I/O.

use std::fmt;
use std::io;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mio::{Events, Poll, Token, Waker};
use oneloop_core::hooks::{LayerSnapshot, ReadyQueue, Unpark, Unparker};
use oneloop_core::{Core, Driver, ParkReport};

use crate::Io;
use crate::process_events::process_events;

/// How many events one park can take; more wait for the next turn (asyncio's
/// `select` has no such limit; epoll hands the rest over next time, oldest first).
pub const EVENTS_CAPACITY: usize = 1024;

/// The token of the driver's own waker; the fd table hands out small indices, never this.
const WAKE_TOKEN: Token = Token(usize::MAX);

/// Ends `epoll_wait` from any thread by writing to the poll's eventfd.
struct EventfdUnpark(Waker);

impl Unpark for EventfdUnpark {
    /// # Panics
    ///
    /// If the eventfd cannot be written: like a failing `epoll_wait`, that means the
    /// driver's own file descriptors are broken.
    fn unpark(&self) {
        if let Err(error) = self.0.wake() {
            panic!("writing the loop's eventfd failed: {error}");
        }
    }
}

// ANCHOR: io_driver
/// The driver that parks in epoll (through mio) and queues ready I/O.
///
/// # Spurious events
///
/// An event says an fd *was* ready when the kernel looked. By the time its handle runs,
/// another handle may have read the data, or the event may carry nothing at all (an
/// error reported as readable, a wake with no cause). Callbacks and futures must treat
/// readiness as a hint: make the non-blocking call, and on `WouldBlock` wait again.
///
/// # Draining readiness
///
/// mio registers edge-triggered. For a persistent reader or writer the driver re-arms
/// the fd after each event, so unread data is reported again next turn (asyncio's
/// level-triggered behaviour). A one-shot readiness future is *not* re-armed when it
/// fires: its task makes the syscall again. Code that waits on readiness must therefore
/// read (or write) until the syscall says `WouldBlock` before waiting again, or it may
/// wait for an edge that already came. (oneloop's sockets do, and tell the table so;
/// a wait that the table cannot be sure of re-arms the fd. See `waits.rs`.)
pub struct IoDriver {
    poll: Poll,
    events: Events,
    io: Rc<Io>,
    unparker: Unparker,
}
// ANCHOR_END: io_driver

impl fmt::Debug for IoDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IoDriver").field("io", &self.io).finish()
    }
}

impl IoDriver {
    /// A new driver with its own epoll instance.
    pub fn new() -> io::Result<Self> {
        let poll = Poll::new()?;
        let registry = poll.registry().try_clone()?;
        let unparker = Unparker::new(EventfdUnpark(Waker::new(poll.registry(), WAKE_TOKEN)?));
        Ok(Self {
            poll,
            events: Events::with_capacity(EVENTS_CAPACITY),
            io: Rc::new(Io::new(registry)),
            unparker,
        })
    }

    /// The shared half (also found in the loop's extensions once installed).
    pub fn io(&self) -> &Rc<Io> {
        &self.io
    }

    /// Ends this driver's `epoll_wait` from any thread (also set on the loop's
    /// scheduler when the driver is installed).
    pub fn unparker(&self) -> &Unparker {
        &self.unparker
    }
}

impl Drop for IoDriver {
    /// A driver that was never installed in a loop has no close hook on it: the table
    /// is emptied here, so that callbacks holding the loop cannot keep it alive.
    /// (Idempotent.)
    fn drop(&mut self) {
        self.io.close();
    }
}

// ANCHOR: driver_impl
impl Driver for IoDriver {
    fn install(&mut self, core: &Rc<Core>) {
        core.extensions().insert(Rc::clone(&self.io));
        // Tie the table to the loop: closing the loop empties it (see `Io::attach`).
        self.io.attach(core);
        // A wake from another thread must end `epoll_wait`: write the eventfd.
        core.scheduler().set_unparker(self.unparker.clone());
    }

    // Inlined into the layer above: a skipped poll costs a comparison, not a call.
    #[inline]
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        if timeout == Some(Duration::ZERO) && self.io.registrations() == 0 {
            // A poll that may not sleep, with no fd to report: `epoll_wait` could only
            // return the waker's event, which does nothing but end a sleep. Skip it;
            // that event stays in the epoll instance, so the next park that may sleep
            // returns at once (another thread's work is delivered by the layer above
            // after every park, skipped or not).
            return ParkReport {
                timeout,
                ..ParkReport::default()
            };
        }
        self.poll_events(timeout, ready)
    }

    fn registrations(&self) -> usize {
        self.io.registrations()
    }

    /// `true`: a wake from another thread writes the poll's eventfd through the
    /// installed [`Unparker`], which ends `epoll_wait`.
    fn external_wakes(&self) -> bool {
        true
    }

    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        out.push(LayerSnapshot {
            name: "io",
            lines: self.io.describe(),
        });
    }
}

impl IoDriver {
    /// One `epoll_wait` of at most `timeout`, its events turned into handles on `ready`.
    fn poll_events(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        // A zero-timeout poll does not sleep: no clock read to measure it.
        let started = (timeout != Some(Duration::ZERO)).then(Instant::now);
        if let Err(error) = self.poll.poll(&mut self.events, timeout) {
            // A signal cut the sleep short: a turn with no events. (Python's `epoll.poll`
            // retries EINTR itself.) Any other error means the epoll fd itself is broken.
            assert!(
                error.kind() == io::ErrorKind::Interrupted,
                "epoll_wait failed: {error}"
            );
            self.events.clear();
        }
        let parked = started.map_or(Duration::ZERO, |started| started.elapsed());
        // The waker's event only ended the sleep; its token finds no fd in the table.
        let wakes = self
            .events
            .iter()
            .filter(|event| event.token() == WAKE_TOKEN)
            .count();
        // Which fds reported a closed read side, before their wakes run the tasks that
        // read them (see `Io::note_closed_events`).
        self.io.note_closed_events(&self.events);
        let io_events = process_events(&self.io, &self.events, ready) - wakes;
        ParkReport {
            timeout,
            parked,
            io_events,
            polls: 1,
            ..ParkReport::default()
        }
    }
}
// ANCHOR_END: driver_impl
