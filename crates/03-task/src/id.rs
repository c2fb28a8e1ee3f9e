//! Task ids and labels.
//!
//! A [`TaskId`] names a slot in the task slab *and* the generation of that slot. When a
//! task finishes its slot is reused, but with the generation bumped, so a waker that
//! still carries the old id can never reach the new task living there.

use std::fmt;
use std::rc::Rc;

/// The name of one task: its slot in the slab and the slot's generation at spawn time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TaskId {
    index: u32,
    generation: u32,
}

impl TaskId {
    /// Builds an id from its two halves (the slab does this; tests may too).
    pub const fn new(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }

    /// The slot this task lives in.
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The slot's generation when this task was put there.
    pub const fn generation(self) -> u32 {
        self.generation
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "task {}.{}", self.index, self.generation)
    }
}

// ANCHOR: label
/// What a task or a callback is called in reports, traces and snapshots.
///
/// Cloning a label never allocates: a static string is copied, a shared one is an `Rc`
/// bump, and an unnamed task is named by its id, formatted only when shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    /// A name known at compile time.
    Static(&'static str),
    /// A name built at run time, shared by every handle that shows it.
    Shared(Rc<str>),
    /// An unnamed task, shown as its id.
    Task(TaskId),
}
// ANCHOR_END: label

impl From<&'static str> for Label {
    fn from(name: &'static str) -> Self {
        Label::Static(name)
    }
}

impl From<String> for Label {
    fn from(name: String) -> Self {
        Label::Shared(name.into())
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Static(name) => f.write_str(name),
            Label::Shared(name) => f.write_str(name),
            Label::Task(id) => write!(f, "{id}"),
        }
    }
}
