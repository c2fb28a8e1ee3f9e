//! What a task costs in memory: allocations per spawn, the size of a slot, and the
//! empty room the slab keeps.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks; each test counts on the watchdog's thread.

use std::cell::RefCell;
use std::future::pending;
use std::sync::{Arc, Mutex};

use oneloop_task::hooks::{ExceptionSink, JoinCell, spawn_into};
use oneloop_task::{Schedule, StepOutcome, TaskId, Tasks, step};
use oneloop_testkit::{CountingAllocator, watchdog_default};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

/// Records the ids it is asked to schedule.
#[derive(Debug, Default)]
struct Recorder {
    ids: Mutex<Vec<TaskId>>,
}

impl Schedule for Recorder {
    fn schedule(&self, id: TaskId) {
        self.ids.lock().expect("not poisoned").push(id);
    }
}

#[test]
fn a_spawn_into_a_slot_with_a_spare_waker_allocates_once() {
    let (spawn, pending_step) = watchdog_default(|| {
        let (probe, counted) = ALLOC.count(|| std::hint::black_box(Box::new(1_u64)));
        drop(probe);
        assert!(counted > 0, "the counting allocator counts");

        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        let sink = ExceptionSink::new();
        // A first task makes the slab's page and leaves its waker in its slot.
        let (first, handle) = spawn_into(&tasks, &sink, async { 1_u32 }, None);
        assert_eq!(step(&tasks, first), StepOutcome::Finished);
        drop(handle);

        let ((id, handle), spawn) =
            ALLOC.count(|| spawn_into(&tasks, &sink, pending::<u32>(), None));
        let (outcome, pending_step) = ALLOC.count(|| step(&tasks, id));
        assert_eq!(outcome, StepOutcome::Pending);
        drop(handle);
        (spawn, pending_step)
    });
    assert_eq!(
        spawn, 1,
        "a spawn allocates its task cell (join cell and future together), nothing else"
    );
    assert_eq!(pending_step, 0, "a step allocates nothing");
}

#[test]
fn a_slot_is_four_words() {
    let words = Tasks::<Recorder>::SLOT_BYTES / size_of::<usize>();
    assert!(
        words <= 4,
        "a slot of {} bytes",
        Tasks::<Recorder>::SLOT_BYTES
    );
}

#[test]
fn ten_thousand_tasks_leave_less_than_a_page_of_slots_empty() {
    const TASKS: usize = 10_000;
    let (capacity, live) = watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        let sink = ExceptionSink::new();
        let handles: Vec<_> = (0..TASKS)
            .map(|_| spawn_into(&tasks, &sink, pending::<()>(), None).1)
            .collect();
        let tasks = tasks.borrow();
        let counts = (tasks.slot_capacity(), tasks.len());
        drop(tasks);
        drop(handles);
        counts
    });
    assert_eq!(live, TASKS);
    assert!(
        capacity - TASKS < Tasks::<Recorder>::SLOTS_PER_PAGE,
        "{capacity} slots of room for {TASKS} tasks"
    );
}

#[test]
fn a_join_cell_without_done_callbacks_is_nine_words() {
    // The joiner's waker or the result (one state), the label, the sink, the
    // done-callback pointer; "the handle is gone" is a state, not a flag beside it.
    let words = size_of::<JoinCell<()>>() / size_of::<usize>();
    assert!(words <= 9, "a join cell of {words} words");
}
