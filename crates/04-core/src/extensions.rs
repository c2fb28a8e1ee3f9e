//! Extensions: a small type map where each layer puts its shared half.
//!
//! A layer of the loop (timers in stage 5, I/O in stage 6, the thread pool in stage 7)
//! has two halves. The half that parks lives in the driver stack, owned by the loop.
//! The half that futures need — "register a timer", "register interest in this fd" —
//! is an `Rc<Something>` put here when the driver is installed. A future finds it on
//! its first poll through [`with_current`](crate::with_current), by type. There is one
//! type map per loop, so two loops on one thread each have their own.
//!
//! The map is a short list of `(TypeId, value)` pairs, scanned. A loop holds a
//! handful of layers (timers, I/O, the thread pool, a few more), and look-ups are
//! frequent: every `sleep`, every socket wait, every store command of the capstone
//! asks for one. Comparing a few `TypeId`s costs less than hashing one, which is what
//! a hash map would do on every look-up.
//!
//! The extensions also keep the loop's close hooks. A layer that holds user callbacks
//! (the timer heap, the I/O table) must let go of them when the loop closes: it adds
//! its close hook from [`Driver::install`](crate::Driver::install), with
//! [`Core::add_close_hook`](crate::Core::add_close_hook) or this map's own method.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::fmt;
use std::mem;
use std::rc::Rc;

use oneloop_task::Label;

use crate::{Core, with_current};

/// A hook run once at close, with the label its failure is reported under.
pub(crate) type CloseHook = (Label, Box<dyn FnOnce()>);

// ANCHOR: extensions
/// A map from a type to one shared value of that type: a short list, scanned.
#[derive(Default)]
pub struct Extensions {
    values: RefCell<Vec<(TypeId, Rc<dyn Any>)>>,
    close_hooks: RefCell<Vec<CloseHook>>,
}

impl Extensions {
    /// Stores `value` as the one value of type `T`, replacing any earlier one.
    pub fn insert<T: 'static>(&self, value: Rc<T>) {
        let id = TypeId::of::<T>();
        let mut values = self.values.borrow_mut();
        let replaced = match values.iter_mut().find(|(key, _)| *key == id) {
            Some((_, slot)) => Some(mem::replace(slot, value)),
            None => {
                values.push((id, value));
                None
            }
        };
        drop(values);
        // A replaced value is dropped only now, with the list released.
        drop(replaced);
    }

    /// The value of type `T`, if a layer installed one.
    pub fn get<T: 'static>(&self) -> Option<Rc<T>> {
        let id = TypeId::of::<T>();
        let values = self.values.borrow();
        let (_, value) = values.iter().find(|(key, _)| *key == id)?;
        Rc::clone(value).downcast::<T>().ok()
    }
}
// ANCHOR_END: extensions

impl Extensions {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a hook run once when the loop closes, after its leftover tasks and queued
    /// handles are dropped; hooks run in the order they were added. The same list as
    /// [`Core::add_close_hook`](crate::Core::add_close_hook).
    pub fn add_close_hook(&self, label: impl Into<Label>, hook: impl FnOnce() + 'static) {
        self.close_hooks
            .borrow_mut()
            .push((label.into(), Box::new(hook)));
    }

    /// Takes the close hooks added so far (the core runs them at close).
    pub(crate) fn take_close_hooks(&self) -> Vec<CloseHook> {
        mem::take(&mut *self.close_hooks.borrow_mut())
    }

    /// Whether a value of type `T` is stored.
    pub fn contains<T: 'static>(&self) -> bool {
        let id = TypeId::of::<T>();
        self.values.borrow().iter().any(|(key, _)| *key == id)
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        self.values.borrow().len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.values.borrow().is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.len())
            .field("close_hooks", &self.close_hooks.borrow().len())
            .finish()
    }
}

// ANCHOR: diagnostics
/// General diagnostic hooks, for a layer that shows the loop's insides (the task tree
/// of stage 10). A layer puts one `Rc<Diagnostics>` in the extensions; while none is
/// there, a leaf's [`note_wait`] and a stall cost one look-up in the map and nothing
/// else: no allocation, no clock read, no syscall.
pub struct Diagnostics {
    /// Told what the running task waits on, by each leaf future that says so.
    pub wait_note: Box<dyn Fn(String)>,
    /// Called once the loop knows it stalled, just before the turn returns
    /// [`LoopError::Stalled`](crate::LoopError::Stalled).
    pub stalled: Box<dyn Fn(&Core)>,
}
// ANCHOR_END: diagnostics

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Diagnostics").finish_non_exhaustive()
    }
}

/// Says what the running task waits on ("sleep until 3.000 s"), for a layer that
/// installed [`Diagnostics`]. `describe` runs only if one did.
pub fn note_wait(describe: impl FnOnce() -> String) {
    let diagnostics = with_current(|core| core.extensions().get::<Diagnostics>()).flatten();
    if let Some(diagnostics) = diagnostics {
        (diagnostics.wait_note)(describe());
    }
}
