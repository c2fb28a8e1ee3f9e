//! Done callbacks on a one-shot future: asyncio's `Future.add_done_callback`.
//!
//! A callback registers at once, in the same list as the waiters: it gets the next
//! waiter id, and the future keeps it as a waker whose `wake` calls it. Settling wakes
//! that list in id order: a callback in the order it was added, a waiter in the order
//! it was made (its id comes with it, before its first poll). asyncio tells them in the
//! order they were added too, an awaiting task being one more done callback to it,
//! added when the task first awaits.
//!
//! Where this differs from asyncio: stage 2 has no loop, so a callback runs inside the
//! settling call (`set_result`, `set_error`, `cancel`), on the settling thread, after
//! the lock is released. asyncio queues it with `call_soon` and runs it in a later turn.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Wake, Waker};

use crate::OneShot;
use crate::oneshot::{Shared, State, lock};

/// The callback itself, taken out when it runs.
type Callback<T, E> = Box<dyn FnOnce(&OneShot<T, E>) + Send>;

/// A done callback, waiting in the waiter list as a waker.
struct DoneCallback<T, E> {
    /// The future, weakly: the future holds this waker, and must not keep itself alive.
    shared: Weak<Shared<T, E>>,
    callback: Mutex<Option<Callback<T, E>>>,
}

impl<T: Send + 'static, E: Send + 'static> Wake for DoneCallback<T, E> {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let callback = self
            .callback
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        // The settling call holds a handle, so the future is still there.
        if let (Some(callback), Some(shared)) = (callback, self.shared.upgrade()) {
            callback(&OneShot { shared });
        }
    }
}

impl<T, E> fmt::Debug for DoneCallback<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DoneCallback { .. }")
    }
}

// ANCHOR: add_done_callback
impl<T: Send + 'static, E: Send + 'static> OneShot<T, E> {
    /// Adds `callback`, called with the future once it is settled (asyncio's
    /// `add_done_callback`); at once if it is settled already.
    ///
    /// It registers now, after every waiter and callback already registered and before
    /// any later one. It runs inside the call that settles the future, on that thread,
    /// with no lock held: there is no loop in this stage to queue it on.
    pub fn add_done_callback(&self, callback: impl FnOnce(&OneShot<T, E>) + Send + 'static) {
        let mut inner = lock(&self.shared);
        if !matches!(inner.state, State::Pending) {
            drop(inner);
            callback(self);
            return;
        }
        let id = self.shared.next_id();
        let waker = Waker::from(Arc::new(DoneCallback {
            shared: Arc::downgrade(&self.shared),
            callback: Mutex::new(Some(Box::new(callback))),
        }));
        inner.waiters.insert(id, waker);
    }
}
// ANCHOR_END: add_done_callback
