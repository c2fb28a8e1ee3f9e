//! A small promise: pending or fulfilled, with `then` and `await`.
//!
//! A JavaScript promise keeps a list of reactions while it is pending. Fulfilling it
//! queues each reaction as a microtask, in the order they were added; adding a
//! reaction to a promise already fulfilled queues it at once. Nothing ever runs a
//! reaction synchronously: that is the whole point of the microtask queue.
//!
//! Resolving a promise with another promise *adopts* it, as in JavaScript: a first
//! microtask adds a reaction to the other promise, and that reaction, a second
//! microtask once the other promise is fulfilled, resolves this one. Rust cannot ask
//! whether a `T` is a promise, so adoption has its own names: [`Resolver::resolve_with`],
//! [`Promise::then_promise`] and [`spawn_async_promise`](crate::spawn_async_promise).
//!
//! Limits, plainly: no rejection (no `catch`, no errors), and values are cloned for
//! each reaction, so `T: Clone`.

use std::cell::RefCell;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::queue_microtask;

/// A reaction: what runs, as a microtask, with the value.
type Reaction<T> = Box<dyn FnOnce(T)>;

// ANCHOR: state
/// A promise's state: a variant per state.
enum State<T> {
    /// Not settled: the reactions wait, in order.
    Pending(Vec<Reaction<T>>),
    /// Settled with a value: new reactions are queued at once.
    Fulfilled(T),
}
// ANCHOR_END: state

/// A JavaScript-style promise of a `T`. Cloning it gives another handle to the same
/// promise.
pub struct Promise<T>(Rc<RefCell<State<T>>>);

impl<T> Clone for Promise<T> {
    fn clone(&self) -> Self {
        Self(Rc::clone(&self.0))
    }
}

impl<T> fmt::Debug for Promise<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &*self.0.borrow() {
            State::Pending(reactions) => format!("pending, {} reaction(s)", reactions.len()),
            State::Fulfilled(_) => "fulfilled".to_string(),
        };
        f.debug_tuple("Promise").field(&state).finish()
    }
}

/// The right to fulfil a promise once: what the executor of `new Promise(resolve => ..)`
/// receives as `resolve`.
pub struct Resolver<T>(Promise<T>);

impl<T> fmt::Debug for Resolver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Resolver").field(&self.0).finish()
    }
}

impl<T: Clone + 'static> Promise<T> {
    /// `new Promise(executor)`: runs `executor` now, with the resolver.
    ///
    /// # Panics
    ///
    /// If the executor resolves it outside [`NodeLoop::run`](crate::NodeLoop::run) while
    /// a reaction waits (queuing a microtask needs a loop), as [`Resolver::resolve`].
    pub fn new(executor: impl FnOnce(Resolver<T>)) -> Self {
        let (promise, resolver) = Self::pending();
        executor(resolver);
        promise
    }

    /// A pending promise and its resolver.
    pub fn pending() -> (Self, Resolver<T>) {
        let promise = Promise(Rc::new(RefCell::new(State::Pending(Vec::new()))));
        (promise.clone(), Resolver(promise))
    }

    /// `Promise.resolve(value)`: a promise fulfilled already.
    pub fn resolved(value: T) -> Self {
        Promise(Rc::new(RefCell::new(State::Fulfilled(value))))
    }

    /// The value, if fulfilled.
    pub fn value(&self) -> Option<T> {
        match &*self.0.borrow() {
            State::Fulfilled(value) => Some(value.clone()),
            State::Pending(_) => None,
        }
    }

    // ANCHOR: then
    /// `promise.then(on_fulfilled)`: once this promise is fulfilled, a microtask runs
    /// `on_fulfilled(value)` and fulfils the returned promise with its result.
    ///
    /// # Panics
    ///
    /// Outside [`NodeLoop::run`](crate::NodeLoop::run) if this promise is fulfilled
    /// already (the reaction must be queued).
    pub fn then<U: Clone + 'static>(
        &self,
        on_fulfilled: impl FnOnce(T) -> U + 'static,
    ) -> Promise<U> {
        let (next, resolver) = Promise::pending();
        self.react(Box::new(move |value| resolver.resolve(on_fulfilled(value))));
        next
    }

    /// `promise.then(on_fulfilled)` where `on_fulfilled` returns a promise: the returned
    /// promise adopts it (see [`Resolver::resolve_with`]), two microtasks later than
    /// [`then`](Self::then) would fulfil it with a plain value.
    ///
    /// # Panics
    ///
    /// As [`then`](Self::then).
    pub fn then_promise<U: Clone + 'static>(
        &self,
        on_fulfilled: impl FnOnce(T) -> Promise<U> + 'static,
    ) -> Promise<U> {
        let (next, resolver) = Promise::pending();
        self.react(Box::new(move |value| {
            resolver.resolve_with(on_fulfilled(value));
        }));
        next
    }

    /// Adds a reaction: queued now if fulfilled, kept in order if pending.
    fn react(&self, reaction: Reaction<T>) {
        let mut state = self.0.borrow_mut();
        match &mut *state {
            State::Pending(reactions) => reactions.push(reaction),
            State::Fulfilled(value) => {
                let value = value.clone();
                drop(state);
                queue_microtask(move || reaction(value));
            }
        }
    }
    // ANCHOR_END: then
}

impl<T: Clone + 'static> Resolver<T> {
    // ANCHOR: resolve
    /// Fulfils the promise with `value` and queues its reactions as microtasks, in the
    /// order they were added.
    ///
    /// # Panics
    ///
    /// Outside [`NodeLoop::run`](crate::NodeLoop::run) if a reaction waits.
    pub fn resolve(self, value: T) {
        let old = std::mem::replace(&mut *self.0.0.borrow_mut(), State::Fulfilled(value.clone()));
        if let State::Pending(reactions) = old {
            for reaction in reactions {
                let value = value.clone();
                queue_microtask(move || reaction(value));
            }
        }
    }
    // ANCHOR_END: resolve

    // ANCHOR: resolve_with
    /// Resolves the promise with `other`, which it adopts: JavaScript's `resolve(p)`
    /// with a promise `p`. As the language specification has it, one microtask (its
    /// `NewPromiseResolveThenableJob`) adds a reaction to `other`; when `other` is
    /// fulfilled, that reaction, a microtask of its own, fulfils this promise with the
    /// same value, and only then are this promise's reactions queued. Two microtasks
    /// more than [`resolve`](Self::resolve) with a plain value.
    ///
    /// A promise resolved with itself never settles (JavaScript rejects it with a
    /// `TypeError`; this promise has no rejection).
    ///
    /// # Panics
    ///
    /// Outside [`NodeLoop::run`](crate::NodeLoop::run): the first step is a microtask.
    pub fn resolve_with(self, other: Promise<T>) {
        queue_microtask(move || other.react(Box::new(move |value| self.resolve(value))));
    }
    // ANCHOR_END: resolve_with
}

// ANCHOR: await
/// What `promise.await` is: the first poll adds a reaction that stores the value and
/// wakes the task; the wake resumes the task inside that same microtask, as V8 resumes
/// an `async function` inside the reaction job.
pub struct Await<T> {
    promise: Promise<T>,
    slot: Option<Rc<RefCell<Option<T>>>>,
}

impl<T: Clone + 'static> Future for Await<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        if let Some(slot) = &self.slot {
            return match slot.borrow_mut().take() {
                Some(value) => Poll::Ready(value),
                None => Poll::Pending,
            };
        }
        // Even a fulfilled promise suspends once: `await` always takes a microtask.
        let slot = Rc::new(RefCell::new(None));
        let filled = Rc::clone(&slot);
        let waker = cx.waker().clone();
        self.promise.react(Box::new(move |value| {
            *filled.borrow_mut() = Some(value);
            waker.wake();
        }));
        self.slot = Some(slot);
        Poll::Pending
    }
}
// ANCHOR_END: await

impl<T> fmt::Debug for Await<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Await")
            .field("promise", &self.promise)
            .field("suspended", &self.slot.is_some())
            .finish()
    }
}

impl<T: Clone + 'static> IntoFuture for Promise<T> {
    type Output = T;
    type IntoFuture = Await<T>;

    fn into_future(self) -> Await<T> {
        Await {
            promise: self,
            slot: None,
        }
    }
}
