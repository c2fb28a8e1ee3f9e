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

use std::fmt;
use std::io;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mio::{Events, Poll};
use oneloop_core::{Driver, Extensions, LayerSnapshot, ParkReport, ReadyQueue};

use crate::Io;
use crate::process_events::process_events;

/// How many events one park can take; more wait for the next turn (asyncio's
/// `select` has no such limit; epoll hands the rest over next time, oldest first).
pub const EVENTS_CAPACITY: usize = 1024;

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
/// level-triggered behaviour). A one-shot readiness future is *not* re-armed: after it
/// fires, only the next `WouldBlock` registers again. Code that waits on readiness must
/// therefore read (or write) until the syscall says `WouldBlock` before waiting again,
/// or it may wait for an edge that already came.
pub struct IoDriver {
    poll: Poll,
    events: Events,
    io: Rc<Io>,
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
        Ok(Self {
            poll,
            events: Events::with_capacity(EVENTS_CAPACITY),
            io: Rc::new(Io::new(registry)),
        })
    }

    /// The shared half (also found in the loop's extensions once installed).
    pub fn io(&self) -> &Rc<Io> {
        &self.io
    }
}

// ANCHOR: driver_impl
impl Driver for IoDriver {
    fn install(&mut self, ext: &Extensions) {
        ext.insert(Rc::clone(&self.io));
    }

    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        let started = Instant::now();
        if let Err(error) = self.poll.poll(&mut self.events, timeout) {
            // A signal cut the sleep short: a turn with no events, as asyncio treats
            // EINTR. Any other error means the epoll fd itself is broken.
            assert!(
                error.kind() == io::ErrorKind::Interrupted,
                "epoll_wait failed: {error}"
            );
            self.events.clear();
        }
        let parked = started.elapsed();
        let io_events = process_events(&self.io, &self.events, ready);
        ParkReport {
            timeout,
            parked,
            io_events,
            ..ParkReport::default()
        }
    }

    fn registrations(&self) -> usize {
        self.io.registrations()
    }

    /// `false`: a wake from another thread unparks the thread, which cannot interrupt
    /// `epoll_wait`. Until stage 7 registers a mio `Waker` with the poll, a waker held
    /// by another thread must not keep a loop with nothing registered waiting for ever:
    /// the loop reports a stall instead.
    fn external_wakes(&self) -> bool {
        false
    }

    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        out.push(LayerSnapshot {
            name: "io",
            lines: self.io.describe(),
        });
    }
}
// ANCHOR_END: driver_impl
