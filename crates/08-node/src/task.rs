//! Async functions: Rust futures driven the way V8 drives an `async function`.
//!
//! Calling an async function in JavaScript runs its body at once, up to the first
//! `await`; `await` suspends it, and a promise reaction — a microtask — resumes it.
//! [`spawn_async`] does the same with a Rust future: it polls the future once, right
//! away, and a wake resumes (polls) it on the spot. There is no ready queue for tasks
//! here: the microtask that runs the promise reaction *is* the resumption.
//!
//! Wakers are `Send + Sync` as std requires. A wake on the loop's own thread resumes
//! the task at once (or, if the task is running, once more right after, as a
//! microtask). A wake from another thread cannot touch the loop: it sets a flag and
//! interrupts the poll, and [`NodeLoop::run`](crate::NodeLoop::run) returns
//! [`NodeError::ForeignWake`](crate::NodeError::ForeignWake).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, ThreadId};

use crate::Promise;
use crate::inner::{ForeignWake, Inner, current, try_current};

type BoxedTask = Pin<Box<dyn Future<Output = ()>>>;

/// Which task, within one loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct TaskId(u64);

/// A task's state: suspended with its future, or running (the future is out).
enum Slot {
    Suspended(BoxedTask),
    Running { woken: bool },
}

/// The live tasks by id.
#[derive(Default)]
pub(crate) struct Tasks {
    next: u64,
    slots: HashMap<TaskId, Slot>,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("live", &self.slots.len())
            .finish()
    }
}

impl Tasks {
    /// Takes every task out, for the loop's owner to drop with no borrow held.
    pub(crate) fn take_all(&mut self) -> Vec<BoxedTask> {
        self.slots
            .drain()
            .filter_map(|(_, slot)| match slot {
                Slot::Suspended(future) => Some(future),
                Slot::Running { .. } => None,
            })
            .collect()
    }
}

/// What a task's waker holds: which loop, which task, and how to reach the loop from
/// another thread.
struct TaskWaker {
    loop_id: u64,
    task: TaskId,
    thread: ThreadId,
    foreign: Arc<ForeignWake>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if thread::current().id() != self.thread {
            // The flag publishes nothing but itself, and it is stored before the eventfd
            // write that makes the loop look at it; SeqCst is more than that needs and
            // costs nothing on a path that ends the loop anyway.
            self.foreign.flag.store(true, Ordering::SeqCst);
            // If the poller is gone the loop has ended: nobody is left to tell.
            let _ = self.foreign.waker.wake();
            return;
        }
        // A wake for a loop that is not running (or another loop) has no task to find.
        if let Some(inner) = try_current()
            && inner.id == self.loop_id
        {
            inner.resume(self.task);
        }
    }
}

impl Inner {
    // ANCHOR: resume
    /// Polls task `id` now. If it is already running (it woke itself), it is polled
    /// once more as a microtask after this poll returns.
    pub(crate) fn resume(self: &Rc<Self>, id: TaskId) {
        let mut future = {
            let mut tasks = self.tasks.borrow_mut();
            let Some(slot) = tasks.slots.get_mut(&id) else {
                return;
            };
            match std::mem::replace(slot, Slot::Running { woken: false }) {
                Slot::Suspended(future) => future,
                Slot::Running { .. } => {
                    *slot = Slot::Running { woken: true };
                    return;
                }
            }
        };
        let waker = Waker::from(Arc::new(TaskWaker {
            loop_id: self.id,
            task: id,
            thread: thread::current().id(),
            foreign: Arc::clone(&self.foreign),
        }));
        let poll = future.as_mut().poll(&mut Context::from_waker(&waker));
        let (finished, again) = {
            let mut tasks = self.tasks.borrow_mut();
            let woken = matches!(tasks.slots.remove(&id), Some(Slot::Running { woken: true }));
            match poll {
                Poll::Ready(()) => (Some(future), false),
                Poll::Pending => {
                    tasks.slots.insert(id, Slot::Suspended(future));
                    (None, woken)
                }
            }
        };
        // A finished future is dropped with the borrow released.
        drop(finished);
        if again {
            let inner = Rc::clone(self);
            self.queues
                .push_microtask(Box::new(move || inner.resume(id)));
        }
    }
    // ANCHOR_END: resume
}

// ANCHOR: spawn_async
/// Calls an async function: runs `future` now, up to its first suspension, and returns
/// the promise of its output, as calling an `async function` does in JavaScript.
///
/// Awaiting a [`Promise`] inside suspends until a microtask delivers its value; when
/// the future returns, the promise is fulfilled and its reactions are queued.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn spawn_async<F>(future: F) -> Promise<F::Output>
where
    F: Future + 'static,
    F::Output: Clone + 'static,
{
    let inner = current("spawn_async");
    let (promise, resolver) = Promise::pending();
    start(
        &inner,
        Box::pin(async move { resolver.resolve(future.await) }),
    );
    promise
}

/// Makes `body` a task and runs it up to its first suspension.
fn start(inner: &Rc<Inner>, body: BoxedTask) {
    let id = {
        let mut tasks = inner.tasks.borrow_mut();
        let id = TaskId(tasks.next);
        tasks.next += 1;
        tasks.slots.insert(id, Slot::Suspended(body));
        id
    };
    inner.resume(id);
}
// ANCHOR_END: spawn_async

/// Calls an async function whose body returns a promise (`return p;` in JavaScript):
/// runs `future` now, as [`spawn_async`] does, and when it returns a promise, the
/// async function's own promise adopts it
/// ([`Resolver::resolve_with`](crate::Resolver::resolve_with)): it is fulfilled two
/// microtasks after the returned promise is.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn spawn_async_promise<F, T>(future: F) -> Promise<T>
where
    F: Future<Output = Promise<T>> + 'static,
    T: Clone + 'static,
{
    let inner = current("spawn_async_promise");
    let (promise, resolver) = Promise::pending();
    start(
        &inner,
        Box::pin(async move { resolver.resolve_with(future.await) }),
    );
    promise
}
