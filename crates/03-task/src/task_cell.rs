//! One allocation per task: the join cell and the future side by side.
//!
//! A spawned task needs two things on the heap: the cell its join handle reads, and the
//! future itself, pinned (an `async` block may point into itself, so it must not move
//! once polled). Boxing the future with `Box::pin` is the safe way to pin it, and costs
//! a second allocation. This file puts the future *inside* the join cell's allocation
//! instead: a [`TaskCell`] is one `Rc` holding the cell, then the future.
//!
//! Pinning there is the one thing safe Rust cannot express. The future sits in a
//! `RefCell` (the step borrows it to poll, the executor borrows it to drop it), and a
//! `RefCell` gives `&mut F`, never `Pin<&mut F>`. So [`PinCell::with_pinned`] makes the
//! pin itself, in one `unsafe` block, and this file keeps the promise that block relies
//! on: from its first poll to its drop, the future never moves.
//!
//! - A [`PinCell`] is only ever built as a field of a [`TaskCell`] or a [`BareTask`],
//!   and those are only ever built inside `Rc::new` and handed out as `Rc`s: the
//!   allocation never moves, and nothing here calls `Rc::get_mut` or `Rc::try_unwrap`.
//! - The future leaves its `Option` only by being dropped where it lies
//!   ([`PinCell::drop_future`] assigns `None`). Nothing takes, swaps or replaces it.
//!
//! The rest is safe code: the slab sees a task through the [`RawTask`] trait object,
//! the join handle sees the same allocation as a [`HandleCell<T>`], a pointer that
//! knows the output type but not the future's.
//!
//! The task's waker lives beside the future, in the same `Option`: the slab gives it
//! to the task when it takes the task in ([`RawTask::set_waker`]), every poll lends it
//! as `&Waker`, and it is dropped with the future. A step then clones no waker: a
//! clone of an `Arc` waker is an atomic increment, and its drop an atomic decrement.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::{JoinCell, Label};

/// A future pinned where it lies, inside a task's allocation, and dropped there, with
/// the task's waker beside it.
pub(crate) struct PinCell<F> {
    future: RefCell<Option<Live<F>>>,
}

/// What a task holds until its future is dropped: the future and its own waker.
struct Live<F> {
    future: F,
    /// A no-op waker until the slab gives the task its own.
    waker: Waker,
}

impl<F> PinCell<F> {
    /// Holds `future`; it is pinned from the first [`with_pinned`](Self::with_pinned) on.
    fn new(future: F) -> Self {
        Self {
            future: RefCell::new(Some(Live {
                future,
                waker: Waker::noop().clone(),
            })),
        }
    }

    /// Gives the task its waker, the one every later poll lends. Does nothing if the
    /// future is gone or borrowed right now.
    fn set_waker(&self, waker: Waker) {
        if let Ok(mut slot) = self.future.try_borrow_mut()
            && let Some(live) = slot.as_mut()
        {
            live.waker = waker;
        }
    }

    // ANCHOR: with_pinned
    /// Runs `body` with the pinned future and the task's waker. `None` if the future
    /// is gone (dropped) or borrowed already (a poll or a drop further up the stack).
    fn with_pinned<R>(&self, body: impl FnOnce(Pin<&mut F>, &Waker) -> R) -> Option<R> {
        let mut slot = self.future.try_borrow_mut().ok()?;
        let Live { future, waker } = slot.as_mut()?;
        // SAFETY: `new_unchecked` needs the future not to move until it is dropped. It
        // lives in this `PinCell`, which this module builds only as a field of a
        // `TaskCell` or a `BareTask` inside `Rc::new`, never moved out of its `Rc` (no
        // `get_mut`, no `try_unwrap`): its address is fixed until the allocation is
        // freed, and freeing it drops the future first. Within the cell, the future
        // leaves its `Option` only by `drop_future`'s assignment of `None`, which drops
        // it in place; nothing takes, swaps or replaces it (`set_waker` assigns the
        // waker beside it, never the future).
        let pinned = unsafe { Pin::new_unchecked(future) };
        Some(body(pinned, waker))
    }
    // ANCHOR_END: with_pinned

    /// Drops the future where it lies (and the waker beside it), then runs `then`, also
    /// when the future's drop panics. Does nothing (and skips `then`) if the future is
    /// gone already or is borrowed right now: whoever holds it drops it afterwards.
    fn drop_future(&self, then: impl FnOnce()) {
        let Ok(slot) = self.future.try_borrow_mut() else {
            return;
        };
        if slot.is_none() {
            return;
        }
        // `then` runs once the borrow is released, also when the drop unwinds: locals
        // are dropped in reverse order, and the borrow is moved into a binding made
        // after the guard.
        let after = OnDrop(Some(then));
        let mut slot = slot;
        // Dropped in place. A drop that re-enters this cell finds it borrowed.
        *slot = None;
        drop(slot);
        drop(after);
    }

    /// Whether the future is still there (not dropped yet).
    fn holds_future(&self) -> bool {
        self.future.try_borrow().map_or(true, |slot| slot.is_some())
    }
}

impl<F> fmt::Debug for PinCell<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinCell")
            .field("holds_future", &self.holds_future())
            .finish()
    }
}

/// Runs its closure when dropped, unwinding included.
struct OnDrop<C: FnOnce()>(Option<C>);

impl<C: FnOnce()> Drop for OnDrop<C> {
    fn drop(&mut self) {
        if let Some(then) = self.0.take() {
            then();
        }
    }
}

// ANCHOR: raw_task
/// A task as the slab sees it, whatever its future and output types.
pub trait RawTask {
    /// The task's label.
    fn label(&self) -> &Label;

    /// Polls the future once, with the task's own waker (the one
    /// [`set_waker`](Self::set_waker) gave it), lent: no waker is cloned. `Ready` when
    /// it finished; a future that is already gone counts as finished.
    fn poll(&self) -> Poll<()>;

    /// Gives the task the waker its polls lend from now on. The slab calls it once,
    /// when it takes the task in; the waker is dropped with the future.
    fn set_waker(&self, waker: Waker);

    /// Drops the future where it lies, unless it is gone already or a poll holds it
    /// right now (then the step that polls it calls this again afterwards).
    fn drop_future(&self);
}
// ANCHOR_END: raw_task

/// What a join handle knows of its task's future: nothing but that it is there.
pub trait ErasedFuture {}

/// A task cell of output `T` as its join handle sees it: the future's type erased.
pub type HandleCell<T> = TaskCell<T, dyn ErasedFuture>;

impl<F> ErasedFuture for PinCell<F> {}

// ANCHOR: task_cell
/// A spawned task's one allocation: the join cell its handle reads, then the future.
/// It derefs to its [`JoinCell`].
pub struct TaskCell<T, F: ?Sized> {
    join: JoinCell<T>,
    future: F,
}
// ANCHOR_END: task_cell

impl<F: Future + 'static> TaskCell<F::Output, PinCell<F>> {
    /// The cell of a new task: `join` for its handle, `future` to poll. The slab gets
    /// the first pointer, the handle the second; both point at the same allocation.
    pub(crate) fn allocate(
        join: JoinCell<F::Output>,
        future: F,
    ) -> (Rc<dyn RawTask>, Rc<HandleCell<F::Output>>) {
        let cell = Rc::new(TaskCell {
            join,
            future: PinCell::new(future),
        });
        let handle: Rc<HandleCell<F::Output>> = cell.clone();
        (cell, handle)
    }
}

impl<T, F: ?Sized> Deref for TaskCell<T, F> {
    type Target = JoinCell<T>;

    fn deref(&self) -> &JoinCell<T> {
        &self.join
    }
}

impl<T, F: ?Sized> fmt::Debug for TaskCell<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskCell")
            .field("join", &self.join)
            .finish()
    }
}

impl<F: Future> RawTask for TaskCell<F::Output, PinCell<F>> {
    fn label(&self) -> &Label {
        &self.join.label
    }

    fn poll(&self) -> Poll<()> {
        self.future
            .with_pinned(|future, waker| {
                self.join.poll_task(future, &mut Context::from_waker(waker))
            })
            .unwrap_or(Poll::Ready(()))
    }

    fn set_waker(&self, waker: Waker) {
        self.future.set_waker(waker);
    }

    fn drop_future(&self) {
        // Once the future is gone, finished or not: the handle learns it was
        // cancelled if no result came, and the done callbacks are due.
        self.future.drop_future(|| {
            self.join.cancel();
            self.join.fire_done_callbacks();
        });
    }
}

/// A future put in the slab with no join handle ([`Tasks::insert`](crate::Tasks::insert)):
/// a label and the future, in one allocation.
pub(crate) struct BareTask<F> {
    label: Label,
    future: PinCell<F>,
}

impl<F: Future<Output = ()> + 'static> BareTask<F> {
    /// The task, ready for the slab.
    pub(crate) fn allocate(label: Label, future: F) -> Rc<dyn RawTask> {
        Rc::new(BareTask {
            label,
            future: PinCell::new(future),
        })
    }
}

impl<F> fmt::Debug for BareTask<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BareTask")
            .field("label", &self.label)
            .finish()
    }
}

impl<F: Future<Output = ()>> RawTask for BareTask<F> {
    fn label(&self) -> &Label {
        &self.label
    }

    fn poll(&self) -> Poll<()> {
        self.future
            .with_pinned(|future, waker| future.poll(&mut Context::from_waker(waker)))
            .unwrap_or(Poll::Ready(()))
    }

    fn set_waker(&self, waker: Waker) {
        self.future.set_waker(waker);
    }

    fn drop_future(&self) {
        self.future.drop_future(|| {});
    }
}
