//! The task slab: where every live task's future waits between steps.
//!
//! A slab is a `Vec` of slots plus a free list. Spawning fills a free slot (or grows the
//! `Vec`); finishing empties it and bumps its generation. Ids are small and `Copy`, so
//! wakers can carry them across threads while the futures stay here.
//!
//! The slab never runs user code: it moves futures in and out, and the caller decides
//! when they are polled or dropped (always with no borrow of the slab held).

use std::fmt;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::{Arc, atomic};

use crate::{Label, Schedule, TaskId, TaskWaker};

/// A task's future, type-erased: it writes its output to its join handle itself, so
/// the slab only needs to know that it finishes.
pub type BoxedTask = Pin<Box<dyn Future<Output = ()>>>;

// ANCHOR: task_state
/// Where a task's future is right now.
pub enum TaskState {
    /// In the slab, waiting for its next step.
    Idle(BoxedTask),
    /// Taken out by a step that is polling it; the step puts it back or drops it.
    Running,
}
// ANCHOR_END: task_state

impl fmt::Debug for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskState::Idle(_) => f.write_str("Idle"),
            TaskState::Running => f.write_str("Running"),
        }
    }
}

/// One live task: its future (or the mark that a step holds it), its waker, its name.
#[derive(Debug)]
pub struct TaskSlot<S> {
    pub(crate) state: TaskState,
    pub(crate) waker: Arc<TaskWaker<S>>,
    /// Set when a step of this task sits in a ready queue; cleared when the step starts.
    /// Two wakes while it is set queue one step (stage 4 uses it; the naive executor of
    /// this stage does not).
    pub(crate) queued: bool,
    pub(crate) label: Label,
}

impl<S> TaskSlot<S> {
    /// The task's label.
    pub fn label(&self) -> &Label {
        &self.label
    }

    /// Whether a step of this task is queued.
    pub fn is_queued(&self) -> bool {
        self.queued
    }

    /// Whether a step is polling this task right now.
    pub fn is_running(&self) -> bool {
        matches!(self.state, TaskState::Running)
    }
}

impl<S: Schedule> TaskSlot<S> {
    /// A waker for this task (the slab's own, shared: nothing is allocated).
    pub fn waker(&self) -> std::task::Waker {
        self.waker.waker()
    }
}

enum Slot<S> {
    Vacant {
        generation: u32,
        next_free: Option<u32>,
        /// The waker of the task that last lived here. The next task in this slot
        /// takes it over, instead of allocating its own, if no one else holds it by
        /// then (no stale waker of the old task can exist, so none can wake the new one).
        spare: Option<Arc<TaskWaker<S>>>,
    },
    Occupied {
        generation: u32,
        task: TaskSlot<S>,
    },
}

// ANCHOR: tasks
/// Every live task of one executor, keyed by [`TaskId`].
pub struct Tasks<S> {
    slots: Vec<Slot<S>>,
    free_head: Option<u32>,
    live: usize,
    scheduler: Arc<S>,
}
// ANCHOR_END: tasks

impl<S> fmt::Debug for Tasks<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("live", &self.live)
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl<S: Schedule> Tasks<S> {
    /// An empty slab whose wakers call `scheduler`.
    pub fn new(scheduler: Arc<S>) -> Self {
        Self {
            slots: Vec::new(),
            free_head: None,
            live: 0,
            scheduler,
        }
    }

    /// The scheduler every waker of this slab calls.
    pub fn scheduler(&self) -> &Arc<S> {
        &self.scheduler
    }

    /// Puts a future in a free slot and returns its id. The task is not scheduled: the
    /// caller queues its first step (as `create_task` calls `call_soon(__step)`).
    /// Without a label, the task is shown by its id.
    pub fn insert(&mut self, future: BoxedTask, label: Option<Label>) -> TaskId {
        let (index, generation, spare) = match self.free_head {
            Some(index) => match &mut self.slots[index as usize] {
                Slot::Vacant {
                    generation,
                    next_free,
                    spare,
                } => {
                    self.free_head = *next_free;
                    (index, *generation, spare.take())
                }
                Slot::Occupied { .. } => unreachable!("the free list only holds vacant slots"),
            },
            None => {
                let index = u32::try_from(self.slots.len()).expect("more than 2^32 tasks");
                self.slots.push(Slot::Vacant {
                    generation: 0,
                    next_free: None,
                    spare: None,
                });
                (index, 0, None)
            }
        };
        let id = TaskId::new(index, generation);
        let reused = spare.and_then(|mut waker| TaskWaker::reuse(&mut waker, id).then_some(waker));
        let waker = reused.unwrap_or_else(|| TaskWaker::new(id, Arc::clone(&self.scheduler)));
        let task = TaskSlot {
            state: TaskState::Idle(future),
            waker,
            queued: false,
            label: label.unwrap_or(Label::Task(id)),
        };
        self.slots[index as usize] = Slot::Occupied { generation, task };
        self.live += 1;
        id
    }

    /// The id the next [`insert`](Self::insert) will return.
    pub fn vacant_id(&self) -> TaskId {
        match self.free_head {
            Some(index) => match self.slots[index as usize] {
                Slot::Vacant { generation, .. } => TaskId::new(index, generation),
                Slot::Occupied { .. } => unreachable!("the free list only holds vacant slots"),
            },
            None => TaskId::new(self.slots.len() as u32, 0),
        }
    }

    // ANCHOR: remove
    /// Empties the slot of `id` (if `id` is live) and bumps its generation, so that
    /// every waker still carrying `id` now misses. The caller drops what it gets back
    /// after releasing its borrow of the slab.
    pub fn remove(&mut self, id: TaskId) -> Option<TaskSlot<S>> {
        let slot = self.slots.get_mut(id.index() as usize)?;
        match slot {
            Slot::Occupied { generation, .. } if *generation == id.generation() => {}
            _ => return None,
        }
        let spare = match &*slot {
            Slot::Occupied { task, .. } => Some(Arc::clone(&task.waker)),
            Slot::Vacant { .. } => None,
        };
        let vacant = Slot::Vacant {
            generation: id.generation().wrapping_add(1),
            next_free: self.free_head,
            spare,
        };
        let Slot::Occupied { task, .. } = mem::replace(slot, vacant) else {
            unreachable!("checked above")
        };
        self.free_head = Some(id.index());
        self.live -= 1;
        Some(task)
    }
    // ANCHOR_END: remove

    /// Marks `id` as queued. Returns its label if it is live and was not queued yet
    /// (the caller then queues one step), `None` if it is stale or already queued.
    pub fn mark_queued(&mut self, id: TaskId) -> Option<Label> {
        let task = self.slot_mut(id)?;
        if task.queued {
            return None;
        }
        task.queued = true;
        Some(task.label.clone())
    }

    /// The slot of `id`, read-only, if `id` is live.
    pub fn get(&self, id: TaskId) -> Option<&TaskSlot<S>> {
        match self.slots.get(id.index() as usize)? {
            Slot::Occupied { generation, task } if *generation == id.generation() => Some(task),
            _ => None,
        }
    }

    /// Whether `id` names a live task.
    pub fn contains(&self, id: TaskId) -> bool {
        self.get(id).is_some()
    }

    /// How many tasks are live.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no task is live.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The ids of all live tasks, in slot order.
    pub fn ids(&self) -> Vec<TaskId> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(index, slot)| match slot {
                Slot::Occupied { generation, .. } => Some(TaskId::new(index as u32, *generation)),
                Slot::Vacant { .. } => None,
            })
            .collect()
    }

    /// How many clones of task wakers are alive outside the slab (held by futures,
    /// join handles, other threads). When it is zero and nothing is queued, no task can
    /// ever be woken again: an executor that waited would wait for ever.
    pub fn wakers_held_elsewhere(&self) -> usize {
        let held = self
            .slots
            .iter()
            .map(|slot| match slot {
                Slot::Occupied { task, .. } => Arc::strong_count(&task.waker) - 1,
                Slot::Vacant { .. } => 0,
            })
            .sum();
        // `strong_count` is a relaxed read. A waker is dropped with a release decrement
        // *after* it was used, so this fence makes everything a waker did before its
        // drop (a push, a flag) visible to what the caller reads next.
        atomic::fence(atomic::Ordering::Acquire);
        held
    }

    /// Whether any task's waker is held outside the slab: [`wakers_held_elsewhere`]
    /// above zero, found by a walk that stops at the first such slot.
    ///
    /// [`wakers_held_elsewhere`]: Self::wakers_held_elsewhere
    pub fn any_waker_held_elsewhere(&self) -> bool {
        let held = self.slots.iter().any(|slot| match slot {
            Slot::Occupied { task, .. } => Arc::strong_count(&task.waker) > 1,
            Slot::Vacant { .. } => false,
        });
        // The same fence as in `wakers_held_elsewhere`, for the same reason.
        atomic::fence(atomic::Ordering::Acquire);
        held
    }

    /// Takes every live task out (for shutdown). The caller drops them after releasing
    /// its borrow: dropping a future runs its destructors, which may wake other tasks.
    pub fn drain(&mut self) -> Vec<TaskSlot<S>> {
        let ids = self.ids();
        ids.into_iter().filter_map(|id| self.remove(id)).collect()
    }

    /// The slot of `id`, if `id` is live: same index *and* same generation. A stale id
    /// (its task finished, the slot maybe reused) finds nothing.
    pub fn slot_mut(&mut self, id: TaskId) -> Option<&mut TaskSlot<S>> {
        match self.slots.get_mut(id.index() as usize)? {
            Slot::Occupied { generation, task } if *generation == id.generation() => Some(task),
            _ => None,
        }
    }
}
