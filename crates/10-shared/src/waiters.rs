//! A queue of wakers: what every primitive of this stage is built on.
//!
//! A task that must wait puts a [`Waiter`] at the back of the primitive's queue and
//! returns `Pending`. Whoever makes progress possible (a `release`, a `set`, a `put`)
//! marks a waiter woken and calls its waker. The waker queues the task's step on the
//! ready queue, like every other wake: the woken task runs in the next turn, never
//! inside the call that woke it.
//!
//! A waiter has the states of the future asyncio keeps for it:
//!
//! - *waiting*: in the queue, not woken;
//! - *woken*: `set_result` was called; it stays in the queue until its task runs and
//!   takes it out (so a newcomer still sees it and queues behind it);
//! - *cancelled*: a cancel request was made to its task while it waited, and waits
//!   to be delivered to that task. asyncio cancels the future a task waits on at
//!   once, so the primitive skips that waiter from the moment of the request, before
//!   the task has run again. A request the task passed on to a task it awaits (a
//!   `select` between the lock and a join) is not one: the waiter stays live.
//!
//! A waiter that looks cancelled may still be waited on: its task can take the request
//! at another await (a sleep it awaits while the wait is parked), and come back to the
//! wait. So a primitive that skips a waiter for looking cancelled marks it *passed
//! over*; polled again with no cancel to deliver, the waiter asks its primitive again
//! for what it was skipped for.
//!
//! A waiter belongs to the task that polled it last: a future moved to another task
//! is judged by that task's requests.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;
use std::task::Waker;

use oneloop_cancel::{TaskRef, current};

// ANCHOR: waiter
/// One waiting task's place in a primitive's queue (asyncio's waiter future).
pub(crate) struct Waiter {
    woken: Cell<bool>,
    waker: RefCell<Option<Waker>>,
    /// The task that waits, if it is a task of stage 9, and its request count when it
    /// began to wait (or when the wait moved to it).
    task: RefCell<Option<(TaskRef, u32)>>,
    /// A wake skipped it because it looked cancelled.
    passed_over: Cell<bool>,
}
// ANCHOR_END: waiter

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field("woken", &self.woken.get())
            .field("cancelled", &self.cancelled())
            .finish_non_exhaustive()
    }
}

impl Waiter {
    /// A waiter for the running task, woken through `waker`.
    pub(crate) fn new(waker: &Waker) -> Rc<Self> {
        Rc::new(Self {
            woken: Cell::new(false),
            waker: RefCell::new(Some(waker.clone())),
            task: RefCell::new(running_task()),
            passed_over: Cell::new(false),
        })
    }

    /// Woken: a primitive handed it what it waited for.
    pub(crate) fn is_woken(&self) -> bool {
        self.woken.get()
    }

    // ANCHOR: done
    /// Cancelled: its task got a cancel request after it started waiting, the request
    /// waits for the task's next cancellation point (it was not passed on to a task
    /// this one awaits), and the waiter was not woken before that (a woken future can
    /// no longer be cancelled).
    pub(crate) fn cancelled(&self) -> bool {
        !self.woken.get()
            && self
                .task
                .borrow()
                .as_ref()
                .is_some_and(|(task, on_entry)| task.must_cancel() && task.cancelling() > *on_entry)
    }

    /// Woken or cancelled: asyncio's `fut.done()`. A primitive wakes only waiters that
    /// are not done.
    pub(crate) fn done(&self) -> bool {
        self.woken.get() || self.cancelled()
    }
    // ANCHOR_END: done

    /// Keeps the waker of the latest poll (a task may be polled by another waker).
    /// Another waker may mean another task (the waiting future moved): the waiter is
    /// then that task's, counted from its requests now.
    pub(crate) fn refresh(&self, waker: &Waker) {
        let mut slot = self.waker.borrow_mut();
        if slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            return;
        }
        *slot = Some(waker.clone());
        drop(slot);
        let mut task = self.task.borrow_mut();
        let same = match (task.as_ref(), current()) {
            (Some((mine, _)), Some(running)) => mine.id() == running.id(),
            (None, None) => true,
            _ => false,
        };
        if !same {
            *task = running_task();
        }
    }

    /// Offers a wake (asyncio's `if not fut.done(): fut.set_result(..)`): wakes it and
    /// returns true unless it is done. One skipped for looking cancelled is marked
    /// passed over.
    pub(crate) fn offer(&self) -> bool {
        if self.done() {
            if !self.woken.get() {
                self.passed_over.set(true);
            }
            return false;
        }
        self.wake();
        true
    }

    /// Whether a wake passed it over since the last call; clears the mark. A waiter
    /// polled with no cancel to deliver that finds it set asks its primitive again.
    pub(crate) fn take_passed_over(&self) -> bool {
        self.passed_over.replace(false)
    }

    /// Marks it served without a wake: its own poll found it may go on.
    pub(crate) fn serve(&self) {
        self.woken.set(true);
    }

    // ANCHOR: wake
    /// Marks it woken and calls its waker, which queues the task's step for the next
    /// turn (the borrow is released before the wake runs).
    pub(crate) fn wake(&self) {
        self.woken.set(true);
        let waker = self.waker.borrow_mut().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
    // ANCHOR_END: wake
}

/// The running task of stage 9, if any, with its request count now.
fn running_task() -> Option<(TaskRef, u32)> {
    current().map(|task| {
        let requests = task.cancelling();
        (task, requests)
    })
}

/// The waiters of one primitive, oldest first.
#[derive(Debug, Default)]
pub(crate) struct WaitQueue {
    waiters: RefCell<VecDeque<Rc<Waiter>>>,
}

impl WaitQueue {
    /// Puts `waiter` at the back.
    pub(crate) fn push(&self, waiter: &Rc<Waiter>) {
        self.waiters.borrow_mut().push_back(Rc::clone(waiter));
    }

    /// Takes `waiter` out, wherever it is; false if it was not there.
    pub(crate) fn remove(&self, waiter: &Rc<Waiter>) -> bool {
        let mut waiters = self.waiters.borrow_mut();
        match waiters.iter().position(|w| Rc::ptr_eq(w, waiter)) {
            Some(at) => {
                waiters.remove(at);
                true
            }
            None => false,
        }
    }

    /// The oldest waiter, if any (asyncio's `next(iter(self._waiters))`).
    pub(crate) fn first(&self) -> Option<Rc<Waiter>> {
        self.waiters.borrow().front().cloned()
    }

    /// Takes the oldest waiter out (asyncio's `popleft`).
    pub(crate) fn pop_first(&self) -> Option<Rc<Waiter>> {
        self.waiters.borrow_mut().pop_front()
    }

    /// Every waiter, oldest first, as a snapshot: waking one may run no user code,
    /// but the snapshot keeps the borrow short all the same.
    pub(crate) fn snapshot(&self) -> Vec<Rc<Waiter>> {
        self.waiters.borrow().iter().cloned().collect()
    }

    /// Whether every waiter is cancelled (true when there is none).
    pub(crate) fn all_cancelled(&self) -> bool {
        self.waiters.borrow().iter().all(|w| w.cancelled())
    }

    /// Whether some waiter is not cancelled.
    pub(crate) fn any_live(&self) -> bool {
        !self.all_cancelled()
    }

    /// How many waiters are queued (woken ones that have not run yet included).
    pub(crate) fn len(&self) -> usize {
        self.waiters.borrow().len()
    }
}
