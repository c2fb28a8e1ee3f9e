//! Observers: who is told what the loop does, turn by turn and handle by handle.
//!
//! asyncio has pieces of this scattered about (debug mode's slow-callback warning, the
//! `repr` of handles); oneloop puts it in one hook so that tests can count turns, the
//! stepper can draw them, and stage 5 can warn about slow callbacks. The loop itself
//! never prints.
//!
//! Zero cost when none is set: the loop checks one `Cell<bool>` before reading the
//! clock, so with no observer a handle runs without a single `Instant::now`.
//!
//! An observer is user code. One that panics is caught and reported to the exception
//! handler ([`OBSERVER_PANICKED`](crate::OBSERVER_PANICKED)); the other observers are
//! still told, and the handle it was told about still runs.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::time::Duration;

use oneloop_task::hooks::{ExceptionSink, panic_message};
use oneloop_task::{ExceptionReport, Label};

use crate::{Handle, OBSERVER_PANICKED, ParkReport};

// ANCHOR: observer
/// Told of each turn's start and end, and of every handle the loop runs.
///
/// Observers run on the loop's thread, between handles, with no borrow of the loop
/// held: they may call back into the loop (read its snapshot, its turn counter).
pub trait Observer {
    /// A turn begins (`turn` counts from 1).
    fn turn_started(&self, turn: u64) {
        let _ = turn;
    }

    /// A handle is about to run in `turn` (it was not cancelled). Lets an observer
    /// read its own clock, or the handle's kind, before user code runs.
    fn handle_started(&self, turn: u64, handle: &Handle) {
        let _ = (turn, handle);
    }

    /// A handle ran in `turn`, taking `elapsed`.
    fn handle_ran(&self, turn: u64, label: &Label, elapsed: Duration) {
        let _ = (turn, label, elapsed);
    }

    /// A turn ended, having parked as `park` says. `handles` is the size of the turn's
    /// `ntodo` batch: every handle popped in its run phase, including cancelled ones
    /// (skipped, never reported to [`handle_ran`](Self::handle_ran)) and steps of tasks
    /// that are gone (reported like any handle; the step finds no task and does
    /// nothing).
    fn turn_ended(&self, turn: u64, park: &ParkReport, handles: usize) {
        let _ = (turn, park, handles);
    }
}
// ANCHOR_END: observer

/// The observers of one loop.
pub(crate) struct Observers {
    // A shared slice, so telling them clones one `Rc` and allocates nothing.
    list: RefCell<Rc<[Rc<dyn Observer>]>>,
    active: Cell<bool>,
}

impl fmt::Debug for Observers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Observers")
            .field("count", &self.list.borrow().len())
            .finish()
    }
}

impl Observers {
    pub(crate) fn new() -> Self {
        Self {
            list: RefCell::new(Rc::from(Vec::new())),
            active: Cell::new(false),
        }
    }

    pub(crate) fn add(&self, observer: Rc<dyn Observer>) {
        let mut list: Vec<_> = self.list.borrow().iter().cloned().collect();
        list.push(observer);
        *self.list.borrow_mut() = Rc::from(list);
        self.active.set(true);
    }

    /// Whether any observer is set: when not, the loop does not even read the clock.
    pub(crate) fn active(&self) -> bool {
        self.active.get()
    }

    /// Calls `tell` for every observer, with no borrow held. A panic in one observer
    /// is caught and reported to `sink` under `label`; the next observer is told.
    ///
    /// Inlined, so that a loop with no observer pays one flag test at each of the three
    /// places a turn tells them, not a call; the loop over the list is not.
    #[inline]
    pub(crate) fn each(&self, sink: &ExceptionSink, label: &Label, tell: impl Fn(&dyn Observer)) {
        if self.active.get() {
            self.tell_all(sink, label, tell);
        }
    }

    #[inline(never)]
    fn tell_all(&self, sink: &ExceptionSink, label: &Label, tell: impl Fn(&dyn Observer)) {
        let list = Rc::clone(&self.list.borrow());
        for observer in list.iter() {
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| tell(&**observer))) {
                sink.report(&ExceptionReport {
                    message: OBSERVER_PANICKED.to_owned(),
                    label: label.clone(),
                    panic: panic_message(payload),
                });
            }
        }
    }

    /// Takes every observer out (at close: a closed loop runs no turn to tell them
    /// of). The caller drops them with no borrow held.
    pub(crate) fn take(&self) -> Rc<[Rc<dyn Observer>]> {
        self.active.set(false);
        mem::replace(&mut *self.list.borrow_mut(), Rc::from(Vec::new()))
    }
}
