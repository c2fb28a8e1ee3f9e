//! The timers' shared half: what `call_later`, `sleep` and `time()` talk to.
//!
//! The timer driver (the parking half) owns an `Rc<Timers>` and puts a clone in the
//! loop's extensions when the loop is built. Code on the loop's thread finds it there:
//! from the loop with [`LoopTimers::timers`], from inside a task or callback with
//! [`Timers::current`] (through the core's one thread-local, no thread-local of its
//! own). Every method takes a short borrow of the heap and releases it before any user
//! code runs or any timer is dropped.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::task::Waker;
use std::time::Duration;

use oneloop_core::hooks::{Handle, ReadyQueue, with_current};
use oneloop_core::{Core, Label};

use crate::debug::debug_from_env;
use crate::{Clock, DEFAULT_SLOW_CALLBACK_DURATION, Scheduled, TimerHandle, TimerHeap};

/// The longest one park may last: one day (asyncio's `MAXIMUM_SELECT_TIMEOUT`). A
/// later deadline is reached in several parks.
pub const MAXIMUM_SELECT_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

// ANCHOR: timers
/// The shared half of the timer layer: the clock, the heap, the debug knobs.
pub struct Timers {
    clock: Rc<dyn Clock>,
    heap: RefCell<TimerHeap>,
    debug: Cell<bool>,
    slow_callback_duration: Cell<Duration>,
    /// Set by the layer's close hook: the heap was emptied and takes no new timer.
    closed: Cell<bool>,
}
// ANCHOR_END: timers

impl fmt::Debug for Timers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timers")
            .field("now", &self.clock.now())
            .field("heap", &*self.heap.borrow())
            .field("debug", &self.debug.get())
            .finish_non_exhaustive()
    }
}

impl Timers {
    /// Timers on `clock`. Debug mode starts on if `ONELOOP_DEBUG` is set (to anything
    /// but empty or `0`).
    pub fn new(clock: Rc<dyn Clock>) -> Self {
        Self {
            clock,
            heap: RefCell::new(TimerHeap::new()),
            debug: Cell::new(debug_from_env()),
            slow_callback_duration: Cell::new(DEFAULT_SLOW_CALLBACK_DURATION),
            closed: Cell::new(false),
        }
    }

    /// The timers of the loop running on this thread, if it has a timer layer.
    pub fn current() -> Option<Rc<Timers>> {
        with_current(|core| core.extensions().get::<Timers>()).flatten()
    }

    /// Like [`current`](Self::current), for the free functions.
    ///
    /// # Panics
    ///
    /// When no loop with a timer layer is running on this thread: there is no clock to
    /// read and no heap to put a timer in.
    pub(crate) fn expect_current(what: &str) -> Rc<Timers> {
        Self::current().unwrap_or_else(|| {
            panic!("{what} needs a running loop with a timer driver on this thread")
        })
    }

    /// The time now on the loop's clock (asyncio's `loop.time()`).
    pub fn time(&self) -> Duration {
        self.clock.now()
    }

    /// The loop's clock.
    pub fn clock(&self) -> &Rc<dyn Clock> {
        &self.clock
    }

    /// Holds the loop's thread for `duration`, as a blocking call would (a virtual
    /// clock jumps; the real clock sleeps).
    pub fn block_for(&self, duration: Duration) {
        self.clock.block_for(duration);
    }

    // ANCHOR: call_at
    /// Runs `callback` once the clock reaches `when` (asyncio's `call_at`).
    ///
    /// After the loop closed, where asyncio raises "Event loop is closed", the callback
    /// is dropped at once and the handle returned is already cancelled.
    pub fn call_at_named(
        &self,
        when: Duration,
        label: impl Into<Label>,
        callback: impl FnOnce() + 'static,
    ) -> TimerHandle {
        if self.closed.get() {
            drop(callback);
            return self.heap.borrow_mut().refused(when, label.into());
        }
        self.heap
            .borrow_mut()
            .push(when, label.into(), Box::new(callback))
    }

    /// Runs `callback` after `delay` (asyncio's `call_later`: `call_at(time() + delay)`).
    /// A sum past `Duration::MAX` saturates: the deadline is then the last nanosecond a
    /// deadline can hold.
    pub fn call_later_named(
        &self,
        delay: Duration,
        label: impl Into<Label>,
        callback: impl FnOnce() + 'static,
    ) -> TimerHandle {
        self.call_at_named(self.time().saturating_add(delay), label, callback)
    }
    // ANCHOR_END: call_at

    // ANCHOR: wake_at
    /// Wakes `waker` once the clock reaches `when`: a *waking* timer, what `sleep`
    /// uses. It is ordered, cancelled and swept like any other; when it comes due its
    /// handle (kind `TimerHandle`, label `label`) runs in the run phase, marks it fired
    /// ([`TimerHandle::has_fired`]) and wakes the waker it holds then
    /// ([`TimerHandle::register`] replaces it). Nothing is boxed: it allocates its entry
    /// alone.
    pub fn wake_at_named(
        &self,
        when: Duration,
        label: impl Into<Label>,
        waker: &Waker,
    ) -> TimerHandle {
        if self.closed.get() {
            return self.heap.borrow_mut().refused(when, label.into());
        }
        self.heap.borrow_mut().push_wake(when, label.into(), waker)
    }

    /// [`wake_at_named`](Self::wake_at_named) after `delay` (`time() + delay`,
    /// saturating as in [`call_later_named`](Self::call_later_named)).
    pub fn wake_later_named(
        &self,
        delay: Duration,
        label: impl Into<Label>,
        waker: &Waker,
    ) -> TimerHandle {
        self.wake_at_named(self.time().saturating_add(delay), label, waker)
    }
    // ANCHOR_END: wake_at

    /// [`call_at_named`](Self::call_at_named) with the label `"timer"`.
    pub fn call_at(&self, when: Duration, callback: impl FnOnce() + 'static) -> TimerHandle {
        self.call_at_named(when, "timer", callback)
    }

    /// [`call_later_named`](Self::call_later_named) with the label `"timer"`.
    pub fn call_later(&self, delay: Duration, callback: impl FnOnce() + 'static) -> TimerHandle {
        self.call_later_named(delay, "timer", callback)
    }

    /// Timers in the heap, cancelled ones included (asyncio's `len(_scheduled)`).
    #[inline]
    pub fn scheduled(&self) -> usize {
        self.heap.borrow().len()
    }

    /// asyncio's `_timer_cancelled_count`, with its quirk: see [`TimerHeap::cancelled`].
    pub fn cancelled(&self) -> usize {
        self.heap.borrow().cancelled()
    }

    /// Timers that may still run.
    pub fn live(&self) -> usize {
        self.heap.borrow().live()
    }

    /// The earliest deadline in the heap.
    pub fn earliest(&self) -> Option<Duration> {
        self.heap.borrow().earliest()
    }

    /// Turns debug mode on or off (asyncio's `loop.set_debug`).
    pub fn set_debug(&self, on: bool) {
        self.debug.set(on);
    }

    /// Whether debug mode is on (asyncio's `loop.get_debug()`).
    pub fn debug(&self) -> bool {
        self.debug.get()
    }

    /// Sets how long a handle may run before debug mode reports it (asyncio's
    /// `loop.slow_callback_duration`). Has an effect only while debug mode is on.
    pub fn set_slow_callback_duration(&self, threshold: Duration) {
        self.slow_callback_duration.set(threshold);
    }

    /// The slow-callback threshold (100 ms unless set).
    pub fn slow_callback_duration(&self) -> Duration {
        self.slow_callback_duration.get()
    }

    // ANCHOR: close
    /// The timer layer's close hook: empties the heap and refuses later timers. Each
    /// callback is dropped after the heap's borrow is released, through the core's
    /// `drop_caught` (a panic in a drop is reported, and the next is dropped), so a
    /// callback that holds the loop's `Rc<Core>` no longer keeps the loop alive.
    pub(crate) fn close(&self) {
        self.closed.set(true);
        let gone = self.heap.borrow_mut().clear();
        // Close hooks run with the closing loop current: its handler hears of a panic.
        let core = with_current(Rc::clone);
        for timer in gone {
            let action = timer.entry.take_action();
            match &core {
                Some(core) => core.drop_caught(&timer.label(), action),
                None => drop(action),
            }
        }
    }

    /// Whether the loop closed: the heap is empty for good.
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }
    // ANCHOR_END: close

    // ANCHOR: sweep_call
    /// Step 1 of a turn: the sweep, with the removed timers dropped after the borrow.
    pub(crate) fn sweep(&self) -> usize {
        // An empty heap has nothing to sweep: a busy loop with no timer pays no more.
        if self.heap.borrow().is_empty() {
            return 0;
        }
        let gone = {
            let mut heap = self.heap.borrow_mut();
            let gone = heap.sweep();
            heap.settle_count();
            gone
        };
        let removed = gone.len();
        drop(gone);
        removed
    }
    // ANCHOR_END: sweep_call

    /// The earliest deadline and the time now, for the select timeout.
    ///
    /// The clock is read only when its answer matters: a zero timeout stays zero and
    /// an empty heap leaves the timeout as asked, whatever the time.
    pub(crate) fn timeout(&self, asked: Option<Duration>) -> Option<Duration> {
        if asked == Some(Duration::ZERO) {
            return asked;
        }
        let Some(earliest) = self.earliest() else {
            return asked;
        };
        crate::select_timeout(asked, Some(earliest), self.time())
    }

    // ANCHOR: move_due
    /// Step 5 of a turn: moves every timer due before `now + resolution` to the back
    /// of the ready queue, in heap order, and says how many.
    pub(crate) fn move_due(&self, ready: &ReadyQueue) -> usize {
        // No timer, nothing due: the clock need not be read.
        if self.heap.borrow().is_empty() {
            return 0;
        }
        // In `u128`: a deadline kept as the last `u64` nanosecond is due once the clock
        // reaches it (saturated to `u64`, `end` would never be above it).
        let end = (self.clock.now().saturating_add(self.clock.resolution())).as_nanos();
        let mut moved = 0;
        let mut skipped = Vec::new();
        // One borrow for the whole batch: nothing below runs user code or drops a
        // callback (the skipped timers are dropped after it).
        let mut heap = self.heap.borrow_mut();
        while heap.peek().is_some_and(|head| u128::from(head.when) < end) {
            let Some(head) = heap.pop_due() else { break };
            if head.is_cancelled() {
                // Its callback or waker is already gone: dropped below.
                skipped.push(head.entry);
                continue;
            }
            // The heap's `Rc` moves to the ready queue: the entry is its handle's
            // callback and cancel flag. Its action stays in it until the handle runs
            // (a poll before then may give a waking timer a new waker).
            let label = head.entry.label();
            let handle = Handle::self_cancelling(label, head.entry);
            ready.push(handle);
            moved += 1;
        }
        drop(heap);
        drop(skipped);
        moved
    }
    // ANCHOR_END: move_due

    /// The head of the heap, for a stepper: one line per timer, earliest first.
    pub(crate) fn describe(&self, limit: usize) -> Vec<String> {
        let heap = self.heap.borrow();
        let mut entries: Vec<&Scheduled> = heap.entries.iter().collect();
        entries.sort_by(|a, b| b.cmp(a));
        entries
            .into_iter()
            .take(limit)
            .map(|timer| {
                let state = if timer.is_cancelled() {
                    " cancelled"
                } else {
                    ""
                };
                format!(
                    "when={:.3} {}{}",
                    timer.when().as_secs_f64(),
                    timer.label(),
                    state
                )
            })
            .collect()
    }
}

// ANCHOR: loop_timers
/// The timers of a loop, reached from the loop itself (`event_loop.timers()`).
pub trait LoopTimers {
    /// The loop's timer layer.
    ///
    /// # Panics
    ///
    /// When the loop was built without a timer driver.
    fn timers(&self) -> Rc<Timers>;
}

impl LoopTimers for Core {
    fn timers(&self) -> Rc<Timers> {
        self.extensions()
            .get::<Timers>()
            .expect("this loop has no timer driver (build it with TimerDriver)")
    }
}
// ANCHOR_END: loop_timers

/// The time on the running loop's clock (asyncio's `loop.time()` from inside a task).
///
/// # Panics
///
/// When no loop with a timer driver is running on this thread.
pub fn time() -> Duration {
    Timers::expect_current("time()").time()
}

/// Schedules `callback` after `delay` on the running loop (asyncio's `call_later`).
///
/// # Panics
///
/// When no loop with a timer driver is running on this thread.
pub fn call_later(delay: Duration, callback: impl FnOnce() + 'static) -> TimerHandle {
    Timers::expect_current("call_later").call_later(delay, callback)
}

/// Schedules `callback` at `when` on the running loop (asyncio's `call_at`).
///
/// # Panics
///
/// When no loop with a timer driver is running on this thread.
pub fn call_at(when: Duration, callback: impl FnOnce() + 'static) -> TimerHandle {
    Timers::expect_current("call_at").call_at(when, callback)
}

/// Holds the running loop's thread for `duration`, as a blocking call would (in
/// virtual time, the clock jumps; with the real clock, the thread sleeps).
///
/// # Panics
///
/// When no loop with a timer driver is running on this thread.
pub fn block_for(duration: Duration) {
    Timers::expect_current("block_for").block_for(duration);
}
