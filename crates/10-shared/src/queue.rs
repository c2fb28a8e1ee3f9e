//! `Queue`: items between producers and consumers, with two queues of wakers.

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_cancel::Error;

use crate::Event;
use crate::bind::LoopBound;
use crate::error::{QueueError, TASK_DONE_TOO_OFTEN};
use crate::waiters::{WaitQueue, Waiter};

/// Where a queue keeps its items: the one thing its three kinds change.
pub(crate) enum Store<T> {
    /// First in, first out (asyncio's `Queue`).
    Fifo(VecDeque<T>),
    /// Last in, first out (`LifoQueue`).
    Lifo(Vec<T>),
    /// Smallest first, equal items in arrival order (`PriorityQueue`): a heap, as
    /// asyncio's is (`heapq`), so a put and a get each cost a logarithm of the length.
    Priority {
        heap: BinaryHeap<Ranked<T>>,
        arrivals: u64,
        order: fn(&T, &T) -> Ordering,
    },
}

/// An item of a priority queue with its arrival number, ordered so that the heap's
/// greatest is the smallest item, and the earliest of equal ones.
pub(crate) struct Ranked<T> {
    item: T,
    arrival: u64,
    order: fn(&T, &T) -> Ordering,
}

impl<T> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.order)(&other.item, &self.item).then(other.arrival.cmp(&self.arrival))
    }
}

impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T> Eq for Ranked<T> {}

impl<T> Store<T> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Store::Fifo(items) => items.len(),
            Store::Lifo(items) => items.len(),
            Store::Priority { heap, .. } => heap.len(),
        }
    }

    pub(crate) fn push(&mut self, item: T) {
        match self {
            Store::Fifo(items) => items.push_back(item),
            Store::Lifo(items) => items.push(item),
            Store::Priority {
                heap,
                arrivals,
                order,
            } => {
                heap.push(Ranked {
                    item,
                    arrival: *arrivals,
                    order: *order,
                });
                *arrivals += 1;
            }
        }
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        match self {
            Store::Fifo(items) => items.pop_front(),
            Store::Lifo(items) => items.pop(),
            Store::Priority { heap, .. } => heap.pop().map(|ranked| ranked.item),
        }
    }
}

// ANCHOR: queue
/// asyncio's `Queue`, `LifoQueue` and `PriorityQueue`.
///
/// With a `maxsize` above zero, [`put`](Self::put) waits while the queue is full;
/// [`get`](Self::get) waits while it is empty. Each side has its queue of wakers: a
/// `put` wakes the first getter, a `get` wakes the first putter. A woken waiter checks
/// again when it runs, and waits again if a newcomer took its place first: unlike the
/// lock, asyncio's queue lets a newcomer in.
pub struct Queue<T> {
    pub(crate) items: RefCell<Store<T>>,
    pub(crate) maxsize: usize,
    pub(crate) getters: WaitQueue,
    pub(crate) putters: WaitQueue,
    pub(crate) unfinished: Cell<usize>,
    pub(crate) finished: Event,
    pub(crate) shut_down: Cell<bool>,
    pub(crate) bound: LoopBound,
}
// ANCHOR_END: queue

impl<T> fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("len", &self.len())
            .field("maxsize", &self.maxsize)
            .field("getters", &self.getters.len())
            .field("putters", &self.putters.len())
            .field("unfinished", &self.unfinished.get())
            .finish()
    }
}

impl<T> Queue<T> {
    fn with_store(maxsize: usize, store: Store<T>) -> Self {
        let finished = Event::new();
        finished.set();
        Self {
            items: RefCell::new(store),
            maxsize,
            getters: WaitQueue::default(),
            putters: WaitQueue::default(),
            unfinished: Cell::new(0),
            finished,
            shut_down: Cell::new(false),
            bound: LoopBound::default(),
        }
    }

    /// A first-in first-out queue; `maxsize` 0 means unbounded.
    pub fn new(maxsize: usize) -> Self {
        Self::with_store(maxsize, Store::Fifo(VecDeque::new()))
    }

    /// A last-in first-out queue (asyncio's `LifoQueue`).
    pub fn lifo(maxsize: usize) -> Self {
        Self::with_store(maxsize, Store::Lifo(Vec::new()))
    }

    /// How many items it holds.
    pub fn len(&self) -> usize {
        self.items.borrow().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a `put` would wait (never, when `maxsize` is 0).
    pub fn full(&self) -> bool {
        self.maxsize > 0 && self.len() >= self.maxsize
    }

    /// Its `maxsize`.
    pub fn maxsize(&self) -> usize {
        self.maxsize
    }

    /// Puts `item` in, waiting while the queue is full; a cancellation point while it
    /// waits. After [`shutdown`](Self::shutdown): `Err(QueueError::ShutDown)`.
    pub fn put(&self, item: T) -> Put<'_, T> {
        Put {
            queue: self,
            item: Some(item),
            waiter: None,
        }
    }

    /// Takes the next item out, waiting while the queue is empty; a cancellation point
    /// while it waits. After a shutdown, what is left still comes out; then
    /// `Err(QueueError::ShutDown)`.
    pub fn get(&self) -> Get<'_, T> {
        Get {
            queue: self,
            waiter: None,
        }
    }

    /// Marks one item got earlier as processed. Called more often than items were put:
    /// `Err(Error::Misuse(TASK_DONE_TOO_OFTEN))`, changing nothing.
    pub fn task_done(&self) -> Result<(), Error> {
        let unfinished = self.unfinished.get();
        if unfinished == 0 {
            return Err(Error::Misuse(TASK_DONE_TOO_OFTEN));
        }
        self.unfinished.set(unfinished - 1);
        if unfinished == 1 {
            self.finished.set();
        }
        Ok(())
    }

    /// Waits until every item put has been marked done with [`task_done`](Self::task_done).
    pub async fn join(&self) -> Result<(), Error> {
        if self.unfinished.get() > 0 {
            self.finished.wait().await?;
        }
        Ok(())
    }

    /// Shuts the queue down (Python 3.13's `shutdown`): every later `put` fails, and
    /// every `get` fails once the queue is empty; waiting putters and getters are woken
    /// to see it. With `immediate`, the items left are dropped and counted as done, so
    /// a `join` waiting on them returns.
    pub fn shutdown(&self, immediate: bool) {
        self.shut_down.set(true);
        if immediate {
            let dropped: Vec<T> = {
                let mut items = self.items.borrow_mut();
                std::iter::from_fn(|| items.pop()).collect()
            };
            let left = self.unfinished.get().saturating_sub(dropped.len());
            self.unfinished.set(left);
            if left == 0 {
                self.finished.set();
            }
            // The items' drops run with no borrow held.
            drop(dropped);
        }
        for waiters in [&self.getters, &self.putters] {
            // Every waiter, a cancelled one too: each must see the shutdown (a cancelled
            // one sees its cancel first).
            while let Some(waiter) = waiters.pop_first() {
                if !waiter.is_woken() {
                    waiter.wake();
                }
            }
        }
    }

    /// Whether [`shutdown`](Self::shutdown) was called.
    pub fn is_shut_down(&self) -> bool {
        self.shut_down.get()
    }

    // ANCHOR: wakeup_next
    /// Wakes the first waiter of `waiters` that is not done, taking it out of the
    /// queue; cancelled ones met on the way are taken out too, marked passed over.
    pub(crate) fn wakeup_next(waiters: &WaitQueue) {
        while let Some(waiter) = waiters.pop_first() {
            if waiter.offer() {
                return;
            }
        }
    }
    // ANCHOR_END: wakeup_next
}

impl<T: Ord> Queue<T> {
    /// A queue whose `get` gives the smallest item first (asyncio's `PriorityQueue`);
    /// equal items come out in the order they went in.
    pub fn priority(maxsize: usize) -> Self {
        Self::with_store(
            maxsize,
            Store::Priority {
                heap: BinaryHeap::new(),
                arrivals: 0,
                order: T::cmp,
            },
        )
    }
}

/// The future of [`Queue::put`].
pub struct Put<'a, T> {
    queue: &'a Queue<T>,
    item: Option<T>,
    waiter: Option<Rc<Waiter>>,
}

impl<T> fmt::Debug for Put<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Put")
            .field("queued", &self.waiter.is_some())
            .finish_non_exhaustive()
    }
}

// The item is only moved, never pinned.
impl<T> Unpin for Put<'_, T> {}

impl<T> Future for Put<'_, T> {
    type Output = Result<(), QueueError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.queue.poll_put(&mut this.item, &mut this.waiter, cx)
    }
}

impl<T> Drop for Put<'_, T> {
    /// Dropped while queued: leave, and pass on a wake this putter was handed.
    fn drop(&mut self) {
        if let Some(waiter) = self.waiter.take() {
            self.queue.putters.remove(&waiter);
            if waiter.is_woken() && !self.queue.full() {
                Queue::<T>::wakeup_next(&self.queue.putters);
            }
        }
    }
}

/// The future of [`Queue::get`].
pub struct Get<'a, T> {
    queue: &'a Queue<T>,
    waiter: Option<Rc<Waiter>>,
}

impl<T> fmt::Debug for Get<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Get")
            .field("queued", &self.waiter.is_some())
            .finish_non_exhaustive()
    }
}

impl<T> Future for Get<'_, T> {
    type Output = Result<T, QueueError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.queue.poll_get(&mut this.waiter, cx)
    }
}

impl<T> Drop for Get<'_, T> {
    /// Dropped while queued: leave, and pass on a wake this getter was handed.
    fn drop(&mut self) {
        if let Some(waiter) = self.waiter.take() {
            self.queue.getters.remove(&waiter);
            if waiter.is_woken() && !self.queue.is_empty() {
                Queue::<T>::wakeup_next(&self.queue.getters);
            }
        }
    }
}
