//! A single-threaded channel: a queue and one waker (a small `asyncio.Queue`).
//!
//! Unbounded: `send` never waits. That suits the chat server, where a line is fanned
//! out to every member and a sender must never wait for the slowest of them. The bound
//! is the sender's business: the [`ChatRoom`](crate::ChatRoom) counts the bytes queued
//! for each member and disconnects a member before its queue passes the room's limit.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::{Poll, Waker};

struct Inner<T> {
    queue: VecDeque<T>,
    receiver_waker: Option<Waker>,
    senders: usize,
    receiver_alive: bool,
}

/// The sending side; clone it for more senders.
pub struct Sender<T> {
    inner: Rc<RefCell<Inner<T>>>,
}

/// The receiving side (one per channel).
pub struct Receiver<T> {
    inner: Rc<RefCell<Inner<T>>>,
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("queued", &self.inner.borrow().queue.len())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("queued", &self.inner.borrow().queue.len())
            .finish()
    }
}

/// A new channel.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let inner = Rc::new(RefCell::new(Inner {
        queue: VecDeque::new(),
        receiver_waker: None,
        senders: 1,
        receiver_alive: true,
    }));
    (
        Sender {
            inner: Rc::clone(&inner),
        },
        Receiver { inner },
    )
}

// ANCHOR: send
impl<T> Sender<T> {
    /// Queues `value` and wakes the receiver. Gives the value back if the receiver is
    /// gone.
    pub fn send(&self, value: T) -> Result<(), T> {
        let waker = {
            let mut inner = self.inner.borrow_mut();
            if !inner.receiver_alive {
                return Err(value);
            }
            inner.queue.push_back(value);
            inner.receiver_waker.take()
        };
        // Woken with the borrow released: the wake may run loop code.
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}
// ANCHOR_END: send

// ANCHOR: recv
impl<T> Receiver<T> {
    /// The next value, oldest first; `None` once every sender is gone and the queue is
    /// empty. Cancel-safe: a value is taken out only by the poll that returns it.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| {
            let mut inner = self.inner.borrow_mut();
            if let Some(value) = inner.queue.pop_front() {
                return Poll::Ready(Some(value));
            }
            if inner.senders == 0 {
                return Poll::Ready(None);
            }
            inner.receiver_waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}
// ANCHOR_END: recv

impl<T> Receiver<T> {
    /// How many values wait.
    pub fn len(&self) -> usize {
        self.inner.borrow().queue.len()
    }

    /// Whether no value waits.
    pub fn is_empty(&self) -> bool {
        self.inner.borrow().queue.is_empty()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.inner.borrow_mut().senders += 1;
        Self {
            inner: Rc::clone(&self.inner),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut inner = self.inner.borrow_mut();
            inner.senders -= 1;
            if inner.senders == 0 {
                inner.receiver_waker.take()
            } else {
                None
            }
        };
        // The last sender wakes the receiver so that it sees the end.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let queued = {
            let mut inner = self.inner.borrow_mut();
            inner.receiver_alive = false;
            std::mem::take(&mut inner.queue)
        };
        // Values still queued are dropped with no borrow held.
        drop(queued);
    }
}
