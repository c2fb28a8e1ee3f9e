//! One allocation per task: its header, its join cell, its future, and every waker
//! pointing at it.
//!
//! A spawned task needs three things on the heap: the cell its join handle reads, the
//! future itself, pinned (an `async` block may point into itself, so it must not move
//! once polled), and the state its wakers share (which task, and who schedules it).
//! The safe way costs three allocations: an `Rc` for the cell, a `Box::pin` for the
//! future, an `Arc` for the wakers. This file makes them one, a [`TaskCell`]:
//!
//! - a **header** any thread may read (the task's id and its scheduler): what a waker
//!   needs to ask for a step;
//! - a **body** only the loop's thread touches: the join cell and the future (or, for
//!   a task with no join handle, its label and the future).
//!
//! The allocation is an `Arc`'s, and its strong count is the number of wakers alive,
//! plus one for the loop's side. The loop's side counts itself in a plain `Cell`: the
//! slab's slot, the join handle and a running step each hold a [`TaskRef`], and cloning
//! one is an increment of that `Cell`, not an atomic. The last `TaskRef` to go drops
//! the body where it lies, on the loop's thread, and gives up the loop's one count.
//! Whichever count goes last, the loop's or a waker's, frees what is left, on whatever
//! thread that is.
//!
//! A waker is a [`RawWaker`] over this allocation, with a vtable of four functions
//! (clone, wake, wake by reference, drop) that touch only the header and the count. A
//! step lends the task's waker to its poll without touching the count at all. A waker
//! is `Send + Sync` though the future is not, because no waker ever reaches the body.
//!
//! Three promises, kept by this file alone, make its `unsafe` blocks hold:
//!
//! 1. **The body is the loop's.** Only a `TaskRef` reaches it, a `TaskRef` is neither
//!    `Send` nor `Sync`, and the body is dropped by the last one, before the loop's count
//!    is given up. A waker's functions read the header and change the count, nothing
//!    else, so the drop of the last count (on any thread) drops no body: the body sits in
//!    a `ManuallyDrop` and is gone by then.
//! 2. **The allocation outlives every pointer into it.** Each `TaskRef` shares the
//!    loop's one count; each waker holds its own, but for the one a step lends, which
//!    holds none and lives only while the step's `TaskRef` does.
//! 3. **The future never moves from its first poll to its drop.** It lives in the
//!    allocation, which never moves, and leaves its `Option` only by being dropped where
//!    it lies ([`PinCell::drop_future`] assigns `None`).

use std::cell::{Cell, RefCell, UnsafeCell};
use std::fmt;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use crate::{JoinCell, Label, Schedule, TaskId};

/// A future pinned where it lies, inside a task's allocation, and dropped there.
pub(crate) struct PinCell<F> {
    future: RefCell<Option<F>>,
}

impl<F> PinCell<F> {
    /// Holds `future`; it is pinned from the first [`with_pinned`](Self::with_pinned) on.
    fn new(future: F) -> Self {
        Self {
            future: RefCell::new(Some(future)),
        }
    }

    // ANCHOR: with_pinned
    /// Runs `body` with the pinned future. `None` if the future is gone (dropped) or
    /// borrowed already (a poll or a drop further up the stack).
    fn with_pinned<R>(&self, body: impl FnOnce(Pin<&mut F>) -> R) -> Option<R> {
        let mut slot = self.future.try_borrow_mut().ok()?;
        let future = slot.as_mut()?;
        // SAFETY: `new_unchecked` needs the future not to move until it is dropped. It
        // lives in this `PinCell`, which is only ever built inside a `TaskCell`'s body,
        // inside `Arc::new`: the allocation never moves, and is freed only after the
        // body was dropped (promises 1 and 2 of this module). Within the cell, the
        // future leaves its `Option` only by `drop_future`'s assignment of `None`, which
        // drops it in place; nothing takes, swaps or replaces it.
        let pinned = unsafe { Pin::new_unchecked(future) };
        Some(body(pinned))
    }
    // ANCHOR_END: with_pinned

    /// Drops the future where it lies, then runs `then`, also when the future's drop
    /// panics. Does nothing (and skips `then`) if the future is gone already or is
    /// borrowed right now: whoever holds it drops it afterwards (a step, once its poll
    /// returns; or, if the step unwinds, the body's own drop).
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

/// Runs its closure when dropped, unwinding included.
struct OnDrop<C: FnOnce()>(Option<C>);

impl<C: FnOnce()> Drop for OnDrop<C> {
    fn drop(&mut self) {
        if let Some(then) = self.0.take() {
            then();
        }
    }
}

/// What lives on the loop's side of a task: polled, and its future dropped, by the
/// loop's thread only. Implemented by this module's two bodies alone.
pub trait Body: sealed::Sealed {
    /// The task's label.
    fn label(&self) -> &Label;
    /// Polls the future once; a future that is gone counts as finished.
    fn poll(&self, cx: &mut Context<'_>) -> Poll<()>;
    /// Drops the future where it lies, unless it is gone or a poll holds it.
    fn drop_future(&self);
}

/// The body of a task with a join handle: the join cell, then the future.
pub(crate) struct JoinBody<T, F> {
    join: JoinCell<T>,
    future: PinCell<F>,
}

impl<T, F> sealed::Sealed for JoinBody<T, F> {}

impl<F: Future> Body for JoinBody<F::Output, F> {
    fn label(&self) -> &Label {
        &self.join.label
    }

    fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.future
            .with_pinned(|future| self.join.poll_task(future, cx))
            .unwrap_or(Poll::Ready(()))
    }

    fn drop_future(&self) {
        self.drop_future_and_tell();
    }
}

impl<T, F> JoinBody<T, F> {
    /// Drops the future, unless it is gone or borrowed. Once it is gone, finished or
    /// not, the handle learns it was cancelled if no result came, and the done
    /// callbacks are due.
    fn drop_future_and_tell(&self) {
        self.future.drop_future(|| {
            self.join.cancel();
            self.join.fire_done_callbacks();
        });
    }
}

impl<T, F> Drop for JoinBody<T, F> {
    /// The future is gone by now, unless a step unwound after the task's slot was
    /// emptied (its `drop_future` afterwards never came): then it goes here, with the
    /// last `TaskRef`, and its callbacks are told as they would have been.
    fn drop(&mut self) {
        self.drop_future_and_tell();
    }
}

/// The body of a task put in the slab with no join handle
/// ([`Tasks::insert`](crate::Tasks::insert)): its label and the future.
pub(crate) struct BareBody<F> {
    label: Label,
    future: PinCell<F>,
}

impl<F> sealed::Sealed for BareBody<F> {}

impl<F: Future<Output = ()>> Body for BareBody<F> {
    fn label(&self) -> &Label {
        &self.label
    }

    fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.future
            .with_pinned(|future| future.poll(cx))
            .unwrap_or(Poll::Ready(()))
    }

    fn drop_future(&self) {
        self.future.drop_future(|| {});
    }
}

/// The front of every task cell, whatever its scheduler and body: a [`TaskRef`] reads
/// it straight from its pointer, with no call through the vtable.
#[repr(C)]
struct Prefix {
    /// The task's id, fixed when it was made. Wakers read it too.
    id: TaskId,
    /// How many `TaskRef`s exist. Together they hold one of the `Arc`'s counts. Only
    /// the loop's thread touches it.
    loop_refs: Cell<usize>,
}

// ANCHOR: task_cell
/// A task's one allocation. Its header (the id and the scheduler) is what a waker
/// reads, on any thread; the loop's count of [`TaskRef`]s and the body (the join cell
/// and the future) are the loop's thread's alone.
#[repr(C)]
pub struct TaskCell<S, B> {
    /// First, so that a pointer to the cell is a pointer to it (`repr(C)`).
    prefix: Prefix,
    scheduler: Arc<S>,
    /// Dropped by the last `TaskRef`, never by the `Arc` (see the module's promise 1).
    body: UnsafeCell<ManuallyDrop<B>>,
}
// ANCHOR_END: task_cell

mod sealed {
    /// Only this module's [`TaskCell`](super::TaskCell) implements the traits below.
    pub trait Sealed {}
}

impl<S, B> sealed::Sealed for TaskCell<S, B> {}

/// What a [`TaskRef`] needs of the cell it points at, whatever view it has of it.
/// Only [`TaskCell`] implements it: a `TaskRef` relies on that to read the cell's
/// front.
pub trait LoopOwned: sealed::Sealed {
    /// Drops the body where it lies.
    ///
    /// # Safety
    ///
    /// Called once, by the last `TaskRef`, after its count reached zero: no reference
    /// into the body is alive, and none can be made.
    #[doc(hidden)]
    unsafe fn drop_body(&self);
}

// ANCHOR: raw_task
/// A task as the slab sees it, whatever its future, output and scheduler: reached
/// through a [`TaskRef`], which adds what needs the cell's own pointer.
pub trait RawTask: LoopOwned {
    /// The task's label.
    fn label(&self) -> &Label;

    /// Polls the body once with a waker lent over `this`.
    ///
    /// # Safety
    ///
    /// `this` is this very cell's pointer, as its `TaskRef` holds it (the one
    /// `Arc::into_raw` gave), and a `TaskRef` to it is alive for the whole call.
    #[doc(hidden)]
    unsafe fn poll_lending(&self, this: NonNull<()>) -> Poll<()>;

    /// A new waker over `this`: one more count.
    ///
    /// # Safety
    ///
    /// As for [`poll_lending`](Self::poll_lending).
    #[doc(hidden)]
    unsafe fn new_waker(&self, this: NonNull<()>) -> Waker;

    /// Drops the future where it lies, unless it is gone already or a poll holds it
    /// right now (then the step that polls it calls this again afterwards, or, if that
    /// step unwinds, the last `TaskRef` drops it with the body).
    fn drop_future(&self);
}
// ANCHOR_END: raw_task

/// A task cell of output `T` as its join handle sees it: the join cell, the future's
/// and the scheduler's types erased.
pub trait JoinView<T>: LoopOwned {
    /// The join cell.
    fn join(&self) -> &JoinCell<T>;
}

/// What a join handle holds: a [`TaskRef`] that derefs to the task's [`JoinCell`].
pub type HandleCell<T> = TaskRef<dyn JoinView<T>>;

impl<S, B> TaskCell<S, B> {
    /// The body, for the loop's thread: only reached through a live `TaskRef`.
    fn body(&self) -> &B {
        // SAFETY: a `TaskRef` to this cell is alive (every caller reached `self`
        // through one), so the body has not been dropped (promise 1), and the only
        // `&mut` ever made of it is `drop_body`'s, once the last `TaskRef` is gone.
        unsafe { &*self.body.get() }
    }
}

impl<S, B> LoopOwned for TaskCell<S, B> {
    unsafe fn drop_body(&self) {
        // SAFETY: the caller is the last `TaskRef` (this trait's contract): no shared
        // reference into the body is alive, since every one was borrowed from a
        // `TaskRef`; and no waker ever makes one (promise 1).
        unsafe { ManuallyDrop::drop(&mut *self.body.get()) }
    }
}

impl<S: Schedule, B: Body> TaskCell<S, B> {
    // ANCHOR: vtable
    /// The four functions behind every waker of this kind of task. Each gets the
    /// cell's pointer, as `Arc::into_raw` gave it, and touches only the header and the
    /// `Arc`'s count.
    const WAKER: RawWakerVTable = RawWakerVTable::new(
        Self::clone_waker,
        Self::wake,
        Self::wake_by_ref,
        Self::drop_waker,
    );

    /// The vtable, in static memory as `RawWaker` requires (the constant's address is
    /// promoted to `'static`). Every waker of the task is made with this one function,
    /// so that `Waker::will_wake` finds them equal; should the compiler duplicate the
    /// constant anyway (it may, across codegen units), it only answers `false`.
    fn vtable() -> &'static RawWakerVTable {
        &Self::WAKER
    }

    unsafe fn clone_waker(data: *const ()) -> RawWaker {
        // SAFETY: `data` is the pointer of a live cell (the waker being cloned holds a
        // count, or a `TaskRef` does while its waker is lent), as `Arc::into_raw`
        // returned it.
        unsafe { Arc::increment_strong_count(data.cast::<Self>()) };
        RawWaker::new(data, Self::vtable())
    }

    unsafe fn wake(data: *const ()) {
        // SAFETY: `data` and this vtable are the waker being consumed, and its count
        // passes to the `Waker` made here. That waker keeps the cell alive through the
        // wake and gives the count up when it is dropped, at the end of this function
        // or while a panic in `schedule` unwinds through it.
        let waker = unsafe { Waker::from_raw(RawWaker::new(data, Self::vtable())) };
        waker.wake_by_ref();
    }

    unsafe fn wake_by_ref(data: *const ()) {
        let cell = data.cast::<Self>();
        // SAFETY: the cell is alive (see `clone_waker`). Only the id is read (a copy)
        // and only the scheduler borrowed, an `Arc` of a `Sync` scheduler: never the
        // whole cell, its count or its body, which the loop's thread may be using
        // right now.
        let (id, scheduler) = unsafe { ((*cell).prefix.id, &(*cell).scheduler) };
        scheduler.schedule(id);
    }

    unsafe fn drop_waker(data: *const ()) {
        // SAFETY: this waker holds one count, given up here. If it was the last, the
        // `Arc` drops the header and frees the allocation, on this thread; the body in
        // its `ManuallyDrop` is not dropped again, it is gone already (promise 1).
        unsafe { Arc::decrement_strong_count(data.cast::<Self>()) }
    }
    // ANCHOR_END: vtable
}

impl<S: Schedule, B: Body> RawTask for TaskCell<S, B> {
    fn label(&self) -> &Label {
        self.body().label()
    }

    unsafe fn poll_lending(&self, this: NonNull<()>) -> Poll<()> {
        let raw = RawWaker::new(this.as_ptr().cast_const(), Self::vtable());
        // SAFETY: the vtable's contract holds: `this` is this cell's own pointer (the
        // caller's contract) and the cell stays alive while the waker is used, since a
        // `TaskRef` is alive for the whole call. The waker is lent, never dropped (it
        // is in a `ManuallyDrop`), so it gives up no count it never took; a future
        // that keeps it calls `clone`, which takes one.
        let waker = ManuallyDrop::new(unsafe { Waker::from_raw(raw) });
        self.body().poll(&mut Context::from_waker(&waker))
    }

    unsafe fn new_waker(&self, this: NonNull<()>) -> Waker {
        let raw = RawWaker::new(this.as_ptr().cast_const(), Self::vtable());
        // SAFETY: as in `poll_lending`; this waker is not lent but kept, so it takes a
        // count of its own through the vtable's `clone`.
        let lent = ManuallyDrop::new(unsafe { Waker::from_raw(raw) });
        Waker::clone(&lent)
    }

    fn drop_future(&self) {
        self.body().drop_future();
    }
}

impl<S, F: Future> JoinView<F::Output> for TaskCell<S, JoinBody<F::Output, F>> {
    fn join(&self) -> &JoinCell<F::Output> {
        &self.body().join
    }
}

impl<S: Schedule, B: Body + 'static> TaskCell<S, B> {
    /// Moves a new cell into its `Arc`, with `refs` `TaskRef`s to share the loop's
    /// count: its pointer, as `Arc::into_raw` gave it.
    fn allocate(id: TaskId, scheduler: Arc<S>, body: B, refs: usize) -> NonNull<Self> {
        let cell = Arc::new(TaskCell {
            prefix: Prefix {
                id,
                loop_refs: Cell::new(refs),
            },
            scheduler,
            body: UnsafeCell::new(ManuallyDrop::new(body)),
        });
        NonNull::new(Arc::into_raw(cell).cast_mut()).expect("an Arc's pointer is never null")
    }
}

/// The cell of a new task `id`: `join` for its handle, `future` to poll. The slab gets
/// the first pointer, the handle the second; both point at the same allocation.
pub(crate) fn spawn_cell<S: Schedule, F: Future + 'static>(
    id: TaskId,
    scheduler: Arc<S>,
    join: JoinCell<F::Output>,
    future: F,
) -> (TaskRef<dyn RawTask>, HandleCell<F::Output>) {
    let body = JoinBody {
        join,
        future: PinCell::new(future),
    };
    let cell = TaskCell::allocate(id, scheduler, body, 2);
    (TaskRef { cell }, TaskRef { cell })
}

/// The cell of a new task `id` with no join handle, ready for the slab.
pub(crate) fn bare_cell<S: Schedule, F: Future<Output = ()> + 'static>(
    id: TaskId,
    scheduler: Arc<S>,
    label: Label,
    future: F,
) -> TaskRef<dyn RawTask> {
    let body = BareBody {
        label,
        future: PinCell::new(future),
    };
    TaskRef {
        cell: TaskCell::allocate(id, scheduler, body, 1),
    }
}

// ANCHOR: task_ref
/// The loop's pointer to a task's cell, shared as an `Rc` is: cloning it counts one
/// more in the cell's `Cell`, and the last one drops the body. Neither `Send` nor
/// `Sync` (its `NonNull` is neither), so it never leaves the loop's thread.
pub struct TaskRef<V: ?Sized + LoopOwned> {
    /// As `Arc::into_raw` gave it, seen as `V`.
    cell: NonNull<V>,
}
// ANCHOR_END: task_ref

impl<V: ?Sized + LoopOwned> TaskRef<V> {
    fn cell(&self) -> &V {
        // SAFETY: this `TaskRef` shares the loop's count, so the allocation is alive
        // (promise 2); the reference lives no longer than `self`.
        unsafe { self.cell.as_ref() }
    }

    /// The cell's front, read with no call through the vtable.
    fn prefix(&self) -> &Prefix {
        // SAFETY: the cell is alive (as in `cell`), and it is a `TaskCell` (the only
        // type that implements the sealed `LoopOwned`), whose first field is its
        // `Prefix` under `repr(C)`: the cell's address is the prefix's.
        unsafe { self.cell.cast::<Prefix>().as_ref() }
    }
}

impl<V: ?Sized + LoopOwned> Clone for TaskRef<V> {
    fn clone(&self) -> Self {
        let refs = &self.prefix().loop_refs;
        refs.set(refs.get() + 1);
        Self { cell: self.cell }
    }
}

impl<V: ?Sized + LoopOwned> Drop for TaskRef<V> {
    fn drop(&mut self) {
        let refs = &self.prefix().loop_refs;
        refs.set(refs.get() - 1);
        if refs.get() > 0 {
            return;
        }
        // Gives up the loop's count once the body is gone, also if its drop panics.
        struct GiveUp<V: ?Sized>(*const V);
        impl<V: ?Sized> Drop for GiveUp<V> {
            fn drop(&mut self) {
                // SAFETY: the pointer is the one `Arc::into_raw` gave (seen as `V`
                // through an unsized coercion, which keeps it as it was), and the
                // loop's side holds one count, given up here, once.
                unsafe { Arc::decrement_strong_count(self.0) }
            }
        }
        let give_up = GiveUp(self.cell.as_ptr().cast_const());
        // SAFETY: the count just reached zero: this was the last `TaskRef`, and
        // `&mut self` means no reference borrowed from it is alive.
        unsafe { self.cell().drop_body() };
        drop(give_up);
    }
}

impl TaskRef<dyn RawTask> {
    /// The task's id.
    pub fn id(&self) -> TaskId {
        self.prefix().id
    }

    /// The task's label.
    pub fn label(&self) -> &Label {
        self.cell().label()
    }

    /// Polls the future once, with the task's own waker, lent: no count changes. `Ready`
    /// when it finished; a future that is already gone counts as finished.
    pub fn poll(&self) -> Poll<()> {
        // SAFETY: `self.cell` is the cell's own pointer, and `self` is alive for the
        // whole call.
        unsafe { self.cell().poll_lending(self.cell.cast()) }
    }

    /// A waker for the task: one more count on its cell, nothing allocated.
    pub fn waker(&self) -> Waker {
        // SAFETY: as in `poll`.
        unsafe { self.cell().new_waker(self.cell.cast()) }
    }

    /// Drops the future where it lies, unless it is gone already or a poll holds it
    /// right now (then the step that polls it calls this again afterwards, or, if that
    /// step unwinds, the last `TaskRef` drops it with the body).
    pub fn drop_future(&self) {
        self.cell().drop_future();
    }

    /// How many of the task's wakers are alive: its cell's count, less the loop's own.
    pub fn wakers_alive(&self) -> usize {
        // SAFETY: the pointer is the one `Arc::into_raw` gave, the cell is alive, and
        // the `Arc` made here is never dropped, so it gives up no count.
        let arc = ManuallyDrop::new(unsafe { Arc::from_raw(self.cell.as_ptr().cast_const()) });
        Arc::strong_count(&arc) - 1
    }
}

impl<T> Deref for TaskRef<dyn JoinView<T>> {
    type Target = JoinCell<T>;

    fn deref(&self) -> &JoinCell<T> {
        self.cell().join()
    }
}

impl fmt::Debug for TaskRef<dyn RawTask> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRef")
            .field("id", &self.id())
            .field("label", self.label())
            .finish()
    }
}

impl<T> fmt::Debug for TaskRef<dyn JoinView<T>> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRef").field("join", &**self).finish()
    }
}

impl<S, B> fmt::Debug for TaskCell<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskCell")
            .field("id", &self.prefix.id)
            .field("loop_refs", &self.prefix.loop_refs.get())
            .finish_non_exhaustive()
    }
}

impl<F> fmt::Debug for PinCell<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinCell")
            .field("holds_future", &self.holds_future())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    use super::{JoinBody, PinCell, TaskCell};
    use crate::{JoinCell, Schedule, TaskId};

    struct Nowhere;

    impl Schedule for Nowhere {
        fn schedule(&self, _id: TaskId) {}
    }

    /// What the bench's memory rows count for a task (`bench/README.md`): in `repr(C)`,
    /// three words (the id with the loop's count, and the scheduler), the join cell, then
    /// the future in its borrow-flagged cell, with no padding between them.
    #[test]
    fn a_cell_is_three_words_its_join_cell_and_its_pinned_future() {
        type Fut = std::future::Ready<[u64; 2]>;
        let cell = size_of::<TaskCell<Nowhere, JoinBody<[u64; 2], Fut>>>();
        let parts =
            3 * size_of::<usize>() + size_of::<JoinCell<[u64; 2]>>() + size_of::<PinCell<Fut>>();
        assert_eq!(cell, parts);
    }
}
