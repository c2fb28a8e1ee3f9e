//! The task slab: where every live task waits between steps.
//!
//! A slab is a list of slots plus a free list. Spawning fills a free slot (or adds
//! one); finishing empties it and bumps its generation. Ids are small and `Copy`, so
//! wakers can carry them across threads while the futures stay here.
//!
//! The slots sit in fixed-size pages of [`Tasks::SLOTS_PER_PAGE`] slots each. A single
//! `Vec` would double its room whenever it is full, and keep up to half of it empty:
//! pages keep at most one page's worth of empty room, and a slot never moves once made.
//!
//! The slab never runs user code: it hands out tasks and takes them back, and the
//! caller decides when they are polled or dropped (always with no borrow of the slab
//! held).

use std::fmt;
use std::future::Future;
use std::mem;
use std::sync::{Arc, atomic};

use crate::task_cell::bare_cell;
use crate::{Label, RawTask, Schedule, TaskId, TaskRef};

// ANCHOR: task_state
/// Whether a step is polling a task right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// In the slab, waiting for its next step.
    Idle,
    /// A step is polling its future; the step sets it back to `Idle` or frees the slot.
    Running,
}
// ANCHOR_END: task_state

// ANCHOR: task_slot
/// One live task as its slot holds it: the loop's pointer to the task's cell (its
/// future, label, id and the state its wakers share, behind [`RawTask`]). Two words.
///
/// The slot owns the task: emptying it (finished, or dropped by its executor) drops
/// the future, unless a step is polling it right now (that step drops it afterwards).
/// The task's generation is the one its id carries; its two flags are bits the slab
/// keeps for each page (see [`Tasks`]).
pub struct LiveTask {
    /// The task's cell; a step polls it through a clone of this pointer.
    pub(crate) task: TaskRef<dyn RawTask>,
}
// ANCHOR_END: task_slot

impl LiveTask {
    /// The task's label.
    pub fn label(&self) -> &Label {
        self.task.label()
    }

    fn generation(&self) -> u32 {
        self.task.id().generation()
    }
}

impl Drop for LiveTask {
    fn drop(&mut self) {
        self.task.drop_future();
    }
}

impl fmt::Debug for LiveTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveTask")
            .field("label", self.task.label())
            .finish()
    }
}

/// The two flags of every slot of one page, one bit per slot.
#[derive(Debug, Default)]
struct Flags {
    /// A step is polling the task ([`TaskState::Running`]).
    running: u64,
    /// A step of the task sits in a ready queue. Set by a wake, cleared when the step
    /// starts; two wakes while it is set queue one step (stage 4 uses it; the naive
    /// executor of this stage does not).
    queued: u64,
}

/// A live task's slot, read-only: the task and its two flags.
pub struct TaskSlot<'a> {
    live: &'a LiveTask,
    running: bool,
    queued: bool,
}

impl Clone for TaskSlot<'_> {
    fn clone(&self) -> Self {
        *self
    }
}

impl Copy for TaskSlot<'_> {}

impl fmt::Debug for TaskSlot<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskSlot")
            .field("label", self.live.task.label())
            .field("running", &self.running)
            .field("queued", &self.queued)
            .finish()
    }
}

impl<'a> TaskSlot<'a> {
    /// The task's label.
    pub fn label(&self) -> &'a Label {
        self.live.task.label()
    }

    /// Whether a step of this task is queued.
    pub fn is_queued(&self) -> bool {
        self.queued
    }

    /// Whether a step is polling this task right now.
    pub fn is_running(&self) -> bool {
        self.running
    }
}

impl TaskSlot<'_> {
    /// A waker for this task: one more count on the task's cell, nothing allocated.
    pub fn waker(self) -> std::task::Waker {
        self.live.task.waker()
    }
}

/// A live task's slot, to change its flags: what a step checks out and back in.
pub struct TaskSlotMut<'a> {
    live: &'a LiveTask,
    flags: &'a mut Flags,
    bit: u64,
}

impl fmt::Debug for TaskSlotMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskSlotMut")
            .field("label", self.live.task.label())
            .field("state", &self.state())
            .field("queued", &self.is_queued())
            .finish()
    }
}

impl TaskSlotMut<'_> {
    /// The task: a step takes its own pointer to it with `TaskRef::clone`.
    pub fn task(&self) -> &TaskRef<dyn RawTask> {
        &self.live.task
    }

    /// The task's label.
    pub fn label(&self) -> &Label {
        self.live.task.label()
    }

    /// Whether a step is polling the task right now.
    pub fn state(&self) -> TaskState {
        if self.flags.running & self.bit == 0 {
            TaskState::Idle
        } else {
            TaskState::Running
        }
    }

    /// Marks whether a step is polling the task.
    pub fn set_state(&mut self, state: TaskState) {
        match state {
            TaskState::Idle => self.flags.running &= !self.bit,
            TaskState::Running => self.flags.running |= self.bit,
        }
    }

    /// Whether a step of the task is queued.
    pub fn is_queued(&self) -> bool {
        self.flags.queued & self.bit != 0
    }

    /// Marks whether a step of the task is queued.
    pub fn set_queued(&mut self, queued: bool) {
        if queued {
            self.flags.queued |= self.bit;
        } else {
            self.flags.queued &= !self.bit;
        }
    }
}

/// No next free slot.
const NONE: u32 = u32::MAX;

/// A slot: two words, vacant or occupied. The two states share the space (the
/// vacant one fits beside the task's pointer, which is never null).
enum Slot {
    Vacant {
        generation: u32,
        /// The next slot of the free list, or [`NONE`].
        next_free: u32,
    },
    Occupied(LiveTask),
}

// ANCHOR: tasks
/// Every live task of one executor, keyed by [`TaskId`].
pub struct Tasks<S> {
    /// Fixed-size pages of slots; slot `i` is `pages[i / SLOTS_PER_PAGE]`, at
    /// `i % SLOTS_PER_PAGE`. Only the last page may be partly filled.
    pages: Vec<Vec<Slot>>,
    /// The two flags of page `p`'s slots, at `flags[p]`: two words, one bit per slot.
    flags: Vec<Flags>,
    /// The first slot of the free list, or [`NONE`].
    free_head: u32,
    live: usize,
    scheduler: Arc<S>,
}
// ANCHOR_END: tasks

impl<S> fmt::Debug for Tasks<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("live", &self.live)
            .field("slots", &self.slot_count())
            .finish()
    }
}

impl<S> Tasks<S> {
    /// How many slots one page holds: one bit of each flag word per slot. A page is
    /// allocated whole, when the last one is full, and never grows: the slab keeps at
    /// most this many slots empty beyond the free list.
    pub const SLOTS_PER_PAGE: usize = u64::BITS as usize;

    /// The size of one slot, vacant or occupied, in bytes. Each page adds two words
    /// for the flags of its slots: a quarter of a byte per slot.
    pub const SLOT_BYTES: usize = mem::size_of::<Slot>();

    /// How many slots have been made (occupied or on the free list).
    fn slot_count(&self) -> usize {
        match self.pages.last() {
            Some(last) => (self.pages.len() - 1) * Self::SLOTS_PER_PAGE + last.len(),
            None => 0,
        }
    }

    /// How many slots the pages have room for: the slots made, plus the unused end of
    /// the last page.
    pub fn slot_capacity(&self) -> usize {
        self.pages.iter().map(Vec::capacity).sum()
    }

    /// The page of slot `index`, and the slot's place in it.
    fn place(index: u32) -> (usize, usize) {
        let index = index as usize;
        (index / Self::SLOTS_PER_PAGE, index % Self::SLOTS_PER_PAGE)
    }

    fn slot(&self, index: u32) -> Option<&Slot> {
        let (page, at) = Self::place(index);
        self.pages.get(page)?.get(at)
    }

    fn slot_at(&mut self, index: u32) -> Option<&mut Slot> {
        let (page, at) = Self::place(index);
        self.pages.get_mut(page)?.get_mut(at)
    }

    /// Every slot with its index, in slot order.
    fn slots(&self) -> impl Iterator<Item = (u32, &Slot)> {
        self.pages
            .iter()
            .flatten()
            .enumerate()
            .map(|(index, slot)| (index as u32, slot))
    }

    /// The slot of `id` (read-only), if `id` is live: same index *and* same
    /// generation.
    pub fn get(&self, id: TaskId) -> Option<TaskSlot<'_>> {
        let (page, at) = Self::place(id.index());
        let flags = self.flags.get(page)?;
        match self.pages.get(page)?.get(at)? {
            Slot::Occupied(live) if live.generation() == id.generation() => {
                let bit = 1 << at;
                Some(TaskSlot {
                    live,
                    running: flags.running & bit != 0,
                    queued: flags.queued & bit != 0,
                })
            }
            _ => None,
        }
    }

    /// The slot of `id`, to change its flags, if `id` is live: same index *and* same
    /// generation. A stale id (its task finished, the slot maybe reused) finds nothing.
    pub fn slot_mut(&mut self, id: TaskId) -> Option<TaskSlotMut<'_>> {
        let (page, at) = Self::place(id.index());
        let flags = self.flags.get_mut(page)?;
        match self.pages.get(page)?.get(at)? {
            Slot::Occupied(live) if live.generation() == id.generation() => Some(TaskSlotMut {
                live,
                flags,
                bit: 1 << at,
            }),
            _ => None,
        }
    }
}

impl<S: Schedule> Tasks<S> {
    /// An empty slab whose wakers call `scheduler`.
    pub fn new(scheduler: Arc<S>) -> Self {
        Self {
            pages: Vec::new(),
            flags: Vec::new(),
            free_head: NONE,
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
    /// Without a label, the task is shown by its id. The future and its label take one
    /// allocation; a spawn with a join handle uses [`spawn_into`](crate::spawn_into).
    ///
    /// Nothing catches a panic of a bare task's poll: it unwinds out of
    /// [`step`](crate::step), and the slot still says a step holds the task (later
    /// steps of it are [`Stale`](crate::StepOutcome::Stale)). A caller that catches the
    /// panic removes the task ([`remove`](Self::remove)), as stage 4's loop does.
    pub fn insert<F>(&mut self, future: F, label: Option<Label>) -> TaskId
    where
        F: Future<Output = ()> + 'static,
    {
        let id = self.vacant_id();
        let label = label.unwrap_or(Label::Task(id));
        self.insert_task(bare_cell(id, Arc::clone(&self.scheduler), label, future))
    }

    /// Puts a task in the free slot its id names (the id
    /// [`vacant_id`](Self::vacant_id) gave when the task was made) and returns that id.
    /// The task is not scheduled.
    pub(crate) fn insert_task(&mut self, task: TaskRef<dyn RawTask>) -> TaskId {
        let id = task.id();
        debug_assert_eq!(id, self.vacant_id(), "a task goes in the slot its id names");
        let index = if self.free_head == NONE {
            let index = u32::try_from(self.slot_count())
                .ok()
                .filter(|&index| index != NONE)
                .expect("fewer than 2^32 - 1 tasks");
            let has_room = self
                .pages
                .last()
                .is_some_and(|page| page.len() < Self::SLOTS_PER_PAGE);
            if !has_room {
                // A page is allocated once, at its full size, and never grows.
                self.pages.push(Vec::with_capacity(Self::SLOTS_PER_PAGE));
                self.flags.push(Flags::default());
            }
            let page = self
                .pages
                .last_mut()
                .expect("a page with room was just made");
            page.push(Slot::Vacant {
                generation: 0,
                next_free: NONE,
            });
            index
        } else {
            let index = self.free_head;
            match self.slot_at(index) {
                Some(Slot::Vacant { next_free, .. }) => {
                    self.free_head = *next_free;
                    index
                }
                _ => unreachable!("the free list only holds vacant slots"),
            }
        };
        let slot = self
            .slot_at(index)
            .expect("the slot was found or made above");
        // The flags of a vacant slot are clear (`remove` clears them).
        *slot = Slot::Occupied(LiveTask { task });
        self.live += 1;
        id
    }

    /// The id the next [`insert`](Self::insert) will return.
    pub fn vacant_id(&self) -> TaskId {
        if self.free_head == NONE {
            return TaskId::new(self.slot_count() as u32, 0);
        }
        match self.slot(self.free_head) {
            Some(Slot::Vacant { generation, .. }) => TaskId::new(self.free_head, *generation),
            _ => unreachable!("the free list only holds vacant slots"),
        }
    }

    // ANCHOR: remove
    /// Empties the slot of `id` (if `id` is live) and bumps its generation, so that
    /// every waker still carrying `id` now misses. The caller drops what it gets back
    /// (which drops the future) after releasing its borrow of the slab.
    pub fn remove(&mut self, id: TaskId) -> Option<LiveTask> {
        let free_head = self.free_head;
        let (page, at) = Self::place(id.index());
        let flags = self.flags.get_mut(page)?;
        let slot = self.pages.get_mut(page)?.get_mut(at)?;
        if !matches!(&*slot, Slot::Occupied(live) if live.generation() == id.generation()) {
            return None;
        }
        let vacant = Slot::Vacant {
            generation: id.generation().wrapping_add(1),
            next_free: free_head,
        };
        let Slot::Occupied(live) = mem::replace(slot, vacant) else {
            unreachable!("checked above")
        };
        let bit = 1 << at;
        flags.running &= !bit;
        flags.queued &= !bit;
        self.free_head = id.index();
        self.live -= 1;
        Some(live)
    }
    // ANCHOR_END: remove

    /// Marks `id` as queued. Returns its label if it is live and was not queued yet
    /// (the caller then queues one step), `None` if it is stale or already queued.
    pub fn mark_queued(&mut self, id: TaskId) -> Option<Label> {
        let mut slot = self.slot_mut(id)?;
        if slot.is_queued() {
            return None;
        }
        slot.set_queued(true);
        Some(slot.label().clone())
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
        self.slots()
            .filter_map(|(_, slot)| match slot {
                Slot::Occupied(live) => Some(live.task.id()),
                Slot::Vacant { .. } => None,
            })
            .collect()
    }

    /// How many clones of task wakers are alive outside the slab and the tasks
    /// themselves (held by futures, join handles, other threads). When it is zero and
    /// nothing is queued, no task can ever be woken again: an executor that waited
    /// would wait for ever.
    pub fn wakers_held_elsewhere(&self) -> usize {
        let held = self
            .slots()
            .map(|(_, slot)| match slot {
                Slot::Occupied(live) => live.task.wakers_alive(),
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
        let held = self.slots().any(|(_, slot)| match slot {
            Slot::Occupied(live) => live.task.wakers_alive() > 0,
            Slot::Vacant { .. } => false,
        });
        // The same fence as in `wakers_held_elsewhere`, for the same reason.
        atomic::fence(atomic::Ordering::Acquire);
        held
    }

    /// Takes every live task out (for shutdown). The caller drops them after releasing
    /// its borrow: dropping a future runs its destructors, which may wake other tasks.
    pub fn drain(&mut self) -> Vec<LiveTask> {
        let ids = self.ids();
        ids.into_iter().filter_map(|id| self.remove(id)).collect()
    }
}
