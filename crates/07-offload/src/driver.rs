//! `OffloadDriver`: the layer's parking half, the outermost driver of the stack.
//!
//! One park: if the inbox already holds work, park the inner drivers with a zero
//! timeout; else park them with the timeout asked for (epoll then sleeps until I/O, a
//! timer, or the eventfd another thread writes). Then move the whole inbox onto the
//! ready queue. The inner layers pushed their I/O events and due timers first, so the
//! handles of one park are queued in that order: I/O, timers, injected work.

use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use oneloop_core::Core;
use oneloop_core::hooks::{LayerSnapshot, ReadyQueue, Unparker, with_current};
use oneloop_core::{Driver, ParkReport};

use crate::Offload;
use crate::inbox::Remote;

// ANCHOR: offload_driver
/// The offload layer's parking half, over an inner driver `D`.
pub struct OffloadDriver<D> {
    inner: D,
    /// Set by `install`, once the inner drivers set their unparker.
    offload: Option<Rc<Offload>>,
}
// ANCHOR_END: offload_driver

impl<D: Driver> OffloadDriver<D> {
    /// The layer over `inner`.
    pub fn new(inner: D) -> Self {
        Self {
            inner,
            offload: None,
        }
    }

    /// The inner driver.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The shared half, once installed.
    pub fn offload(&self) -> Option<&Rc<Offload>> {
        self.offload.as_ref()
    }
}

// ANCHOR: park
impl<D: Driver> Driver for OffloadDriver<D> {
    fn install(&mut self, core: &Rc<Core>) {
        self.inner.install(core);
        // The innermost driver says how to end its sleep; a thread that parks in
        // `thread::park` needs no more than an unpark of that thread.
        let scheduler = core.scheduler();
        let unparker = match scheduler.off_thread().unparker() {
            Some(unparker) => unparker.clone(),
            None => Unparker::new(thread::current()),
        };
        let offload = Rc::new(Offload::new(Arc::new(Remote::new(unparker))));
        core.extensions().insert(Rc::clone(&offload));
        // Task wakers from other threads now go to the inbox, and closing the loop
        // shuts the default pool down and closes the inbox.
        offload.attach(core);
        self.offload = Some(offload);
    }

    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        let Self { inner, offload } = self;
        let Some(offload) = offload.as_deref() else {
            return inner.park(timeout, ready);
        };
        // Both checks read the count beside the inbox's lock: an empty inbox costs
        // a load, not a lock.
        let mut timeout = if offload.pending() > 0 {
            Some(Duration::ZERO)
        } else {
            timeout
        };
        // A park for ever with nothing below to wait for: live handles keep it (or
        // a waker held elsewhere). Watch for the last handle's drop while it sleeps.
        let watch = timeout.is_none() && inner.registrations() == 0;
        if watch && !offload.begin_idle_park() {
            timeout = Some(Duration::ZERO);
        }
        let report = inner.park(timeout, ready);
        offload.end_park(watch);
        if offload.pending() > 0
            && let Some(core) = with_current(Rc::clone)
        {
            offload.remote().deliver(&core);
        }
        report
    }

    /// The inbox's items and the live [`LoopHandle`]s: a thread that holds one may
    /// still call `call_soon_threadsafe` (asyncio's `call_soon_threadsafe(loop.stop)`
    /// from another thread), and every job in a pool holds one for its answer.
    ///
    /// [`LoopHandle`]: crate::LoopHandle
    fn registrations(&self) -> usize {
        let own = self.offload.as_ref().map_or(0, |offload| {
            // Handles first: a call made before its handle was dropped is then seen
            // in the inbox's count (see `Offload::handles_held`).
            let handles = offload.count_handles();
            handles + offload.pending()
        });
        own + self.inner.registrations()
    }

    /// `true`: another thread ends the park through the inbox's unparker.
    fn external_wakes(&self) -> bool {
        true
    }

    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        if let Some(offload) = &self.offload {
            out.push(LayerSnapshot {
                name: "offload",
                lines: vec![
                    format!("inbox: {} pending", offload.pending()),
                    format!("default pool: {} jobs in flight", offload.in_flight()),
                ],
            });
        }
        self.inner.describe(out);
    }
}
// ANCHOR_END: park

impl<D> Drop for OffloadDriver<D> {
    fn drop(&mut self) {
        // The loop is gone: handles held by other threads must say so.
        if let Some(offload) = &self.offload {
            offload.close_inbox();
        }
    }
}

impl<D> fmt::Debug for OffloadDriver<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OffloadDriver")
            .field("offload", &self.offload)
            .finish_non_exhaustive()
    }
}
