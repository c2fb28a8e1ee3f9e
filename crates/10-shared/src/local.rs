//! Task-locals: asyncio's context variables.
//!
//! A [`Context`] maps task-locals to values. One context is *current* on a thread at a
//! time; [`TaskLocal::get`] and [`TaskLocal::set`] read and write the current one. A
//! task spawned with [`spawn`](crate::spawn) gets a **copy** of the spawner's current
//! context, taken at the spawn, and every step of the task runs with that copy
//! current: what the task sets is seen by everything it awaits and by its later steps,
//! never by its parent; what the parent sets after the spawn is never seen by the child.
//!
//! Stage 9's own spawns (its `spawn`, a group's and a gather's children) copy the
//! context too, through stage 9's general step-scope hook, once this stage is in use on
//! the thread: from the first [`TaskLocal::new`], [`TaskLocal::set`] or [`spawn`]
//! there, or from [`carry_context_into_every_task`]. A stage 9 task spawned before
//! runs in the thread's base context, as the loop's own callbacks do.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use oneloop_cancel::StepScope;
use oneloop_core::CallbackHandle;
use oneloop_core::hooks::with_current;
use oneloop_offload::Offloaded;

/// The values of one context: a task-local's id to its value. Values are `Send` and
/// `Sync` so that a copy can go to a worker thread ([`to_thread`]).
pub(crate) type Vars = HashMap<u64, Arc<dyn Any + Send + Sync>>;

// ANCHOR: context
/// A set of task-local values (asyncio's `contextvars.Context`).
///
/// A `Context` is a shared handle: clones of it are the same context, and a value set
/// through one is seen through all. [`copy`](Self::copy) makes a new context with the
/// same values, after which the two are independent.
#[derive(Clone, Default)]
pub struct Context {
    pub(crate) vars: Rc<RefCell<Vars>>,
}
// ANCHOR_END: context

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("values", &self.vars.borrow().len())
            .finish()
    }
}

thread_local! {
    /// The context current on this thread: the thread's base context, or the context of
    /// the task whose step is running.
    static CURRENT: RefCell<Context> = RefCell::new(Context::default());
}

impl Context {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current context itself (not a copy): what [`TaskLocal::set`] writes to now.
    pub fn current() -> Self {
        CURRENT.with(|current| current.borrow().clone())
    }

    /// A copy of the current context (asyncio's `contextvars.copy_context()`).
    pub fn copy_current() -> Self {
        Self::current().copy()
    }

    /// A new context holding the same values as this one.
    pub fn copy(&self) -> Self {
        Self {
            vars: Rc::new(RefCell::new(self.vars.borrow().clone())),
        }
    }

    /// Makes this context current and returns the one it replaces; hand that back to
    /// [`enter`](Self::enter) to restore it.
    pub fn enter(&self) -> Context {
        CURRENT.with(|current| current.replace(self.clone()))
    }

    /// Runs `f` with this context current, then restores the previous one (asyncio's
    /// `Context.run`), even if `f` panics.
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Context>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(previous) = self.0.take() {
                    // Fails only while the thread's locals are torn down.
                    let _ = CURRENT.try_with(|current| current.replace(previous));
                }
            }
        }
        let _restore = Restore(Some(self.enter()));
        f()
    }

    fn get(&self, id: u64) -> Option<Arc<dyn Any + Send + Sync>> {
        self.vars.borrow().get(&id).cloned()
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Every task spawned on this thread from now on, by this stage or by stage 9 (its
/// `spawn`, a group's children, a gather's), runs in a copy of the context current at
/// its spawn, as asyncio's `create_task` copies it. This stage calls it itself on first
/// use; call it before spawning anything to cover every task.
pub fn carry_context_into_every_task() {
    oneloop_cancel::scope_every_task(copy_at_spawn);
}

/// The scope of a stage 9 task spawned now: a copy of the current context.
fn copy_at_spawn() -> Rc<dyn StepScope> {
    Rc::new(ContextScope(Context::copy_current()))
}

/// A task's own context, current during each of its steps.
struct ContextScope(Context);

impl StepScope for ContextScope {
    fn step(&self, step: &mut dyn FnMut()) {
        self.0.run(step);
    }
}

/// A task-local variable (asyncio's `contextvars.ContextVar`): one value per context.
pub struct TaskLocal<T> {
    id: u64,
    name: &'static str,
    default: Option<T>,
    _values: PhantomData<fn() -> T>,
}

impl<T> fmt::Debug for TaskLocal<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskLocal")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// What [`TaskLocal::set`] replaced, to put back with [`TaskLocal::reset`].
#[derive(Debug)]
pub struct Token<T> {
    id: u64,
    previous: Option<T>,
}

impl<T: Clone + Send + Sync + 'static> TaskLocal<T> {
    /// A task-local with no default: [`get`](Self::get) is `None` until it is set.
    pub fn new(name: &'static str) -> Self {
        carry_context_into_every_task();
        Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name,
            default: None,
            _values: PhantomData,
        }
    }

    /// A task-local whose [`get`](Self::get) is `default` until it is set.
    pub fn with_default(name: &'static str, default: T) -> Self {
        Self {
            default: Some(default),
            ..Self::new(name)
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its value in the current context, else its default.
    pub fn get(&self) -> Option<T> {
        match Context::current().get(self.id) {
            Some(value) => value.downcast_ref::<T>().cloned(),
            None => self.default.clone(),
        }
    }

    /// Sets its value in the current context; the token puts the old one back.
    pub fn set(&self, value: T) -> Token<T> {
        carry_context_into_every_task();
        let previous = self.current_value();
        Context::current()
            .vars
            .borrow_mut()
            .insert(self.id, Arc::new(value));
        Token {
            id: self.id,
            previous,
        }
    }

    /// Puts back what the `set` that gave `token` replaced.
    ///
    /// # Panics
    ///
    /// When `token` comes from another task-local.
    pub fn reset(&self, token: Token<T>) {
        assert_eq!(
            token.id, self.id,
            "a token resets the task-local that made it"
        );
        let context = Context::current();
        let mut vars = context.vars.borrow_mut();
        match token.previous {
            Some(previous) => vars.insert(self.id, Arc::new(previous)),
            None => vars.remove(&self.id),
        };
    }

    fn current_value(&self) -> Option<T> {
        Context::current()
            .get(self.id)
            .and_then(|value| value.downcast_ref::<T>().cloned())
    }
}

// ANCHOR: scoped
/// A future that runs every poll with `context` current: the shape of a task of
/// this module (asyncio runs each step of a task in the task's context).
pub struct Scoped<F> {
    pub(crate) context: Context,
    pub(crate) future: Pin<Box<F>>,
}
// ANCHOR_END: scoped

impl<F> fmt::Debug for Scoped<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scoped")
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

impl<F> Scoped<F> {
    /// `future`, to be polled with `context` current.
    pub fn new(context: Context, future: F) -> Self {
        carry_context_into_every_task();
        Self {
            context,
            future: Box::pin(future),
        }
    }

    /// The context its polls run in.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

/// `loop.call_soon(callback)` from inside the loop: the callback runs in a copy of the
/// context current now, as asyncio's handles do. `None` when no loop runs.
pub fn call_soon(label: &'static str, callback: impl FnOnce() + 'static) -> Option<CallbackHandle> {
    call_soon_in(&Context::copy_current(), label, callback)
}

/// `loop.call_soon(callback, context=context)`: the callback runs with `context`
/// itself current, so what it sets stays in `context`. `None` when no loop runs.
pub fn call_soon_in(
    context: &Context,
    label: &'static str,
    callback: impl FnOnce() + 'static,
) -> Option<CallbackHandle> {
    let context = context.clone();
    with_current(|core| core.call_soon_named(label, move || context.run(callback)))
}

/// Stage 7's `to_thread`, carrying task-locals: the worker runs `f` in a copy of the
/// context current at the call (asyncio's `to_thread` copies the context too). What
/// `f` sets stays on the worker's side.
pub fn to_thread<T, F>(f: F) -> Offloaded<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let vars: Vars = Context::current().vars.borrow().clone();
    oneloop_offload::to_thread(move || {
        let context = Context {
            vars: Rc::new(RefCell::new(vars)),
        };
        context.run(f)
    })
}
