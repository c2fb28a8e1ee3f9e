//! A one-shot future: a value that someone will set once, and that anyone may await.
//!
//! This is the counterpart of `asyncio.Future`. The producer holds a [`OneShot`] and
//! settles it once: [`set_result`](OneShot::set_result), [`set_error`](OneShot::set_error)
//! (asyncio's `set_exception`) or [`cancel`](OneShot::cancel). Any number of consumers
//! call [`wait`](OneShot::wait) and await the [`Wait`] future they get back.
//!
//! # The shared state, and who may touch it
//!
//! Every handle and every waiter share one `Arc<Shared>`: the `Mutex<Inner>` below, and
//! two atomics beside it. So a value can be set from another thread while a waiter is
//! polled on this one.
//!
//! - `state` moves once, from `Pending` to `Done`, `Failed` or `Cancelled`, and never
//!   back. Only the settling calls on [`OneShot`] write it.
//! - `waiters` maps each [`Wait`] that returned `Pending` to the waker it was last polled
//!   with. Most futures have one waiter, so the map keeps its first entry inline and
//!   allocates only for a second one ([`Waiters`]). A waiter writes only its own entry: its `poll` inserts or replaces it, its
//!   `Drop` removes it. Settling takes the whole map out.
//! - A waiter checks the state and registers its waker under the same lock. That is
//!   what makes a wakeup impossible to lose: a producer on another thread either settles
//!   before the check (the waiter sees the value) or after the registration (the
//!   producer finds the waker).
//! - Wakers are called after the lock is released, because a wake may poll the waiter
//!   at once on this thread, and that poll takes the lock again.
//! - Beside the lock, `settled` says the state has left `Pending`. It is set under the
//!   lock, in the same critical section as the state, and never cleared. A waiter
//!   dropped after that has no entry left to remove, so its `Drop` reads the flag and
//!   skips the lock. The next waiter id is an atomic counter too, so
//!   [`wait`](OneShot::wait) takes no lock either.
//!
//! asyncio keeps a list of done callbacks (`add_done_callback`) and schedules each one
//! through the loop; a Rust future keeps wakers instead: waking says "poll me again",
//! and the executor decides when. [`OneShot::add_done_callback`] is there for code
//! that wants asyncio's shape: the callback waits in the same map, as a waker whose
//! `wake` calls it.
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::collections::BTreeMap;
use std::fmt;
use std::future::IntoFuture;
use std::iter;
use std::mem;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Waker;

use crate::error::{FutureError, Phase};

/// Identifies one [`Wait`] among the waiters of a [`OneShot`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct WaiterId(pub(crate) u64);

/// Where a one-shot future is: one variant per state, each holding what it needs.
#[derive(Debug)]
pub(crate) enum State<T, E> {
    /// Not settled yet: waiters return `Pending`.
    Pending,
    /// Settled by `set_result`.
    Done(T),
    /// Settled by `set_error`.
    Failed(E),
    /// Settled by `cancel`.
    Cancelled,
}

impl<T, E> State<T, E> {
    fn phase(&self) -> Phase {
        match self {
            State::Pending => Phase::Pending,
            State::Done(_) => Phase::Done,
            State::Failed(_) => Phase::Failed,
            State::Cancelled => Phase::Cancelled,
        }
    }
}

impl<T: Clone, E: Clone> State<T, E> {
    /// What a waiter gets once the future is settled, or `None` while it is pending.
    /// Every waiter gets its own clone, as every `await fut` in asyncio gets the result.
    pub(crate) fn outcome(&self) -> Option<Result<T, FutureError<E>>> {
        match self {
            State::Pending => None,
            State::Done(value) => Some(Ok(value.clone())),
            State::Failed(error) => Some(Err(FutureError::Failed(error.clone()))),
            State::Cancelled => Some(Err(FutureError::Cancelled)),
        }
    }
}

/// The state shared by every handle and waiter of one future, behind one mutex.
#[derive(Debug)]
pub(crate) struct Inner<T, E> {
    pub(crate) state: State<T, E>,
    /// The waker of each waiter that is waiting, keyed by id: settling wakes them in the
    /// order the waiters were made by [`OneShot::wait`].
    pub(crate) waiters: Waiters,
}

/// What every handle and waiter of one future hold by `Arc`: the locked state, and two
/// atomics read without the lock.
#[derive(Debug)]
pub(crate) struct Shared<T, E> {
    inner: Mutex<Inner<T, E>>,
    /// Set under the lock when the state leaves `Pending`, never cleared: once it reads
    /// `true`, the waiter map was taken and no waiter can register again.
    settled: AtomicBool,
    /// The id the next waiter (or done callback) gets; ids only grow, so the wake order
    /// is the order of the `fetch_add`s.
    next_waiter: AtomicU64,
}

impl<T, E> Shared<T, E> {
    /// A new waiter id, without the lock.
    pub(crate) fn next_id(&self) -> WaiterId {
        // Relaxed: an id is only compared with other ids of this future, and every use
        // of it goes through the lock, which orders it.
        WaiterId(self.next_waiter.fetch_add(1, Ordering::Relaxed))
    }

    /// Whether the state has left `Pending`, without the lock.
    pub(crate) fn is_settled(&self) -> bool {
        // Acquire pairs with the Release store in `settle`.
        self.settled.load(Ordering::Acquire)
    }
}

/// The wakers of the waiting waiters, by id: a small map that keeps one entry inline.
///
/// A `BTreeMap` allocates a node for its first entry. A future awaited by one task
/// (nearly every future) would pay that allocation on every first `Pending`; here the
/// first entry lives in the map itself, and the tree is used only beside it. An id is
/// in at most one of the two places. Iteration (for waking) is in id order, as the
/// tree's alone would be. The tree itself is made only for a second waiter: dropping
/// a `BTreeMap`, even an empty one, is a call, and the usual future would pay it twice.
#[derive(Debug, Default)]
pub(crate) struct Waiters {
    first: Option<(WaiterId, Waker)>,
    rest: Option<BTreeMap<WaiterId, Waker>>,
}

// `get_mut` and `insert` are called by `register` (oneshot_poll.rs), which the
// exercise's unsolved build leaves as a hole: there they are unused.
#[allow(dead_code)]
impl Waiters {
    /// The waker stored for `id`.
    pub(crate) fn get_mut(&mut self, id: &WaiterId) -> Option<&mut Waker> {
        match &mut self.first {
            Some((first, waker)) if first == id => Some(waker),
            _ => self.rest.as_mut()?.get_mut(id),
        }
    }

    /// Stores `waker` for `id` (replacing a stored one).
    pub(crate) fn insert(&mut self, id: WaiterId, waker: Waker) {
        if let Some(stored) = self.get_mut(&id) {
            *stored = waker;
        } else if self.first.is_none() {
            self.first = Some((id, waker));
        } else {
            self.rest.get_or_insert_default().insert(id, waker);
        }
    }

    /// Forgets the waker of `id`, if one is stored.
    pub(crate) fn remove(&mut self, id: &WaiterId) {
        match &self.first {
            Some((first, _)) if first == id => self.first = None,
            _ => {
                if let Some(rest) = &mut self.rest {
                    rest.remove(id);
                }
            }
        }
    }

    /// Whether a waker is stored for `id`.
    pub(crate) fn contains_key(&self, id: &WaiterId) -> bool {
        matches!(&self.first, Some((first, _)) if first == id)
            || self.rest.as_ref().is_some_and(|rest| rest.contains_key(id))
    }

    /// How many wakers are stored.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.as_ref().map_or(0, BTreeMap::len)
    }

    /// Wakes every stored waker, in id order. The usual case, one waker and an empty
    /// tree, wakes it without walking the tree.
    pub(crate) fn wake_all(self) {
        if self.rest.as_ref().is_none_or(BTreeMap::is_empty) {
            if let Some((_, waker)) = self.first {
                waker.wake();
            }
            return;
        }
        self.into_values().for_each(Waker::wake);
    }

    /// Every stored waker, in id order (the order the waiters were made).
    pub(crate) fn into_values(self) -> impl Iterator<Item = Waker> {
        let mut first = self.first;
        let mut rest = self.rest.into_iter().flatten().peekable();
        iter::from_fn(move || {
            let first_is_next = match (&first, rest.peek()) {
                (Some((id, _)), Some((next, _))) => id < next,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if first_is_next {
                first.take().map(|(_, waker)| waker)
            } else {
                rest.next().map(|(_, waker)| waker)
            }
        })
    }
}

/// Locks the shared state, ignoring poisoning.
///
/// Every change under this lock is a single assignment or map operation, so a panic
/// while it is held (a waiter's panicking poll, an unfinished exercise) cannot leave the
/// state half-changed. Ignoring the poison also keeps `Wait`'s `Drop` from panicking
/// while a test is already unwinding, which would abort the whole test binary.
pub(crate) fn lock<T, E>(shared: &Shared<T, E>) -> MutexGuard<'_, Inner<T, E>> {
    shared.inner.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The producer's (and anyone's) handle to a one-shot future: `asyncio.Future`.
///
/// Cheap to clone; every clone is the same future. `T` is the result and `E` the error
/// a producer may fail with; awaiting requires both to be `Clone`, since every waiter
/// gets the outcome.
pub struct OneShot<T, E> {
    pub(crate) shared: Arc<Shared<T, E>>,
}

impl<T, E> Clone for OneShot<T, E> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T, E> Default for OneShot<T, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, E> fmt::Debug for OneShot<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = lock(&self.shared);
        f.debug_struct("OneShot")
            .field("phase", &inner.state.phase())
            .field("waiters", &inner.waiters.len())
            .finish()
    }
}

impl<T, E> OneShot<T, E> {
    /// A pending future (asyncio's `loop.create_future()`).
    pub fn new() -> Self {
        Self {
            shared: Arc::new(Shared {
                inner: Mutex::new(Inner {
                    state: State::Pending,
                    waiters: Waiters::default(),
                }),
                settled: AtomicBool::new(false),
                next_waiter: AtomicU64::new(0),
            }),
        }
    }

    /// A new waiter: a future that resolves when this one is settled (`await fut`).
    ///
    /// Each waiter registers its own waker, so any number of tasks may wait at once.
    /// Making one takes no lock: its id comes from an atomic counter.
    pub fn wait(&self) -> Wait<T, E> {
        Wait {
            id: self.shared.next_id(),
            shared: Arc::clone(&self.shared),
        }
    }

    /// Settles the future with `value` and wakes every waiter (asyncio's `set_result`).
    ///
    /// # Errors
    ///
    /// [`FutureError::InvalidState`] if it was already settled; `value` is dropped.
    pub fn set_result(&self, value: T) -> Result<(), FutureError<E>> {
        todo!("stage 2, challenge: the one-shot future; see chapter 2.2")
    }

    /// Settles the future with an error and wakes every waiter (asyncio's
    /// `set_exception`).
    ///
    /// # Errors
    ///
    /// [`FutureError::InvalidState`] if it was already settled; `error` is dropped.
    pub fn set_error(&self, error: E) -> Result<(), FutureError<E>> {
        todo!("stage 2, challenge: the one-shot future; see chapter 2.2")
    }

    /// Cancels the future: every waiter is woken and gets [`FutureError::Cancelled`].
    ///
    /// Returns `true` if this call cancelled it, `false` if it was already settled (then
    /// nothing changes), as asyncio's `cancel` does.
    pub fn cancel(&self) -> bool {
        todo!("stage 2, challenge: the one-shot future; see chapter 2.2")
    }

    /// Whether the future is settled, in any of its three ways (asyncio's `done`).
    pub fn done(&self) -> bool {
        self.shared.is_settled()
    }

    /// Whether the future was cancelled (asyncio's `cancelled`).
    pub fn cancelled(&self) -> bool {
        matches!(lock(&self.shared).state, State::Cancelled)
    }

    /// How many wakers are registered right now. A waiter registers when it returns
    /// `Pending`, and leaves when it is dropped or the future is settled; a done
    /// callback waiting for the future counts as one too.
    pub fn registered_wakers(&self) -> usize {
        lock(&self.shared).waiters.len()
    }

    /// The one place the state leaves `Pending`.
    fn settle(&self, attempted: &'static str, settled: State<T, E>) -> Result<(), FutureError<E>> {
        todo!("stage 2, challenge: the one-shot future; see chapter 2.2")
    }
}

impl<T: Clone, E: Clone> OneShot<T, E> {
    /// The outcome, without waiting (asyncio's `result`, which also raises the stored
    /// exception or `CancelledError`).
    ///
    /// # Errors
    ///
    /// [`FutureError::NotDone`] while pending; [`FutureError::Failed`] or
    /// [`FutureError::Cancelled`] if it ended that way.
    pub fn result(&self) -> Result<T, FutureError<E>> {
        todo!("stage 2, challenge: the one-shot future; see chapter 2.2")
    }
}

/// `handle.await` waits on a fresh waiter, as `await fut` does in asyncio.
impl<T: Clone, E: Clone> IntoFuture for OneShot<T, E> {
    type Output = Result<T, FutureError<E>>;
    type IntoFuture = Wait<T, E>;

    fn into_future(self) -> Wait<T, E> {
        // The handle is given up: its reference becomes the waiter's, with no count
        // changed.
        Wait {
            id: self.shared.next_id(),
            shared: self.shared,
        }
    }
}

/// One waiter of a [`OneShot`]: a future that resolves to its outcome.
///
/// Made by [`OneShot::wait`]. Polling it after it resolved gives the outcome again.
/// Dropping it removes its waker from the future, so an abandoned waiter (a timed-out
/// `select`, a dropped task) does not keep a waker alive until the future settles.
/// Once the future is settled there is nothing to remove, and the drop takes no lock.
pub struct Wait<T, E> {
    pub(crate) shared: Arc<Shared<T, E>>,
    pub(crate) id: WaiterId,
}

impl<T, E> Drop for Wait<T, E> {
    fn drop(&mut self) {
        // Settling took every entry out, and no waiter registers after it.
        if !self.shared.is_settled() {
            lock(&self.shared).waiters.remove(&self.id);
        }
    }
}

impl<T, E> fmt::Debug for Wait<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let registered = lock(&self.shared).waiters.contains_key(&self.id);
        f.debug_struct("Wait")
            .field("id", &self.id)
            .field("registered", &registered)
            .finish()
    }
}
