//! What a task costs in memory: allocations per spawn, the size of a slot, and the
//! empty room the slab keeps.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks; each test counts on the watchdog's thread.

use std::cell::RefCell;
use std::future::pending;
use std::sync::Arc;

use oneloop_task::hooks::{ExceptionSink, JoinCell, spawn_into};
use oneloop_task::{Label, StepOutcome, Tasks, step};
use oneloop_testkit::{CountingAllocator, watchdog_default};

use crate::common::Recorder;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

#[test]
fn a_spawn_allocates_once_in_a_new_slot_or_a_reused_one() {
    let (fresh, reused, pending_step) = watchdog_default(|| {
        let (probe, counted) = ALLOC.count(|| std::hint::black_box(Box::new(1_u64)));
        drop(probe);
        assert!(counted > 0, "the counting allocator counts");

        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        let sink = ExceptionSink::new();
        // A first task makes the slab's page.
        let (first, first_handle) = spawn_into(&tasks, &sink, async { 1_u32 }, None);
        // A second goes in a slot no task has used yet.
        let ((second, second_handle), fresh) =
            ALLOC.count(|| spawn_into(&tasks, &sink, async { 2_u32 }, None));
        assert_eq!(second.index(), first.index() + 1, "a new slot");
        assert_eq!(step(&tasks, first), StepOutcome::Finished);
        drop(first_handle);

        // A third goes in the first one's freed slot.
        let ((id, handle), reused) =
            ALLOC.count(|| spawn_into(&tasks, &sink, pending::<u32>(), None));
        assert_eq!(id.index(), first.index(), "the freed slot");
        let (outcome, pending_step) = ALLOC.count(|| step(&tasks, id));
        assert_eq!(outcome, StepOutcome::Pending);
        drop((handle, second_handle));
        (fresh, reused, pending_step)
    });
    for (slot, count) in [("a new slot", fresh), ("a reused slot", reused)] {
        assert_eq!(
            count, 1,
            "a spawn into {slot} allocates its task cell (header, join cell and future \
             together, its wakers pointing at it), nothing else"
        );
    }
    assert_eq!(pending_step, 0, "a step allocates nothing");
}

#[test]
fn a_spawn_that_opens_a_new_page_of_slots_allocates_the_page_too() {
    let (opening, next) = watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        let sink = ExceptionSink::new();
        let per_page = Tasks::<Recorder>::SLOTS_PER_PAGE;
        let mut handles: Vec<_> = (0..per_page)
            .map(|_| spawn_into(&tasks, &sink, pending::<()>(), None).1)
            .collect();
        handles.reserve(2);
        // The first page is full: this spawn opens the second.
        let ((id, handle), opening) =
            ALLOC.count(|| spawn_into(&tasks, &sink, pending::<()>(), None));
        assert_eq!(
            id.index() as usize,
            per_page,
            "the first slot of the second page"
        );
        handles.push(handle);
        let ((_, handle), next) = ALLOC.count(|| spawn_into(&tasks, &sink, pending::<()>(), None));
        handles.push(handle);
        drop(handles);
        drop(tasks.borrow_mut().drain());
        (opening, next)
    });
    assert_eq!(opening, 2, "its task cell and the new page");
    assert_eq!(next, 1, "the next spawn finds room in that page");
}

#[test]
fn a_task_with_no_join_handle_is_one_allocation_too() {
    let inserted = watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        // The first task makes the slab's page.
        let first = tasks.borrow_mut().insert(pending::<()>(), None);
        let (second, inserted) = ALLOC.count(|| tasks.borrow_mut().insert(pending::<()>(), None));
        assert_eq!(second.index(), first.index() + 1);
        drop(tasks.borrow_mut().drain());
        inserted
    });
    assert_eq!(inserted, 1, "its cell: header, label and future together");
}

#[test]
fn a_slot_is_two_words() {
    // The task's pointer (two words); a vacant slot's generation and next free index
    // fit in the same two words.
    let words = Tasks::<Recorder>::SLOT_BYTES.div_ceil(size_of::<usize>());
    assert!(
        words <= 2,
        "a slot of {} bytes",
        Tasks::<Recorder>::SLOT_BYTES
    );
}

#[test]
fn a_slot_freed_while_queued_gives_its_next_task_clear_flags() {
    watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        let sink = ExceptionSink::new();
        let (old, old_handle) = spawn_into(&tasks, &sink, pending::<()>(), None);
        assert!(tasks.borrow_mut().mark_queued(old).is_some());
        drop(tasks.borrow_mut().remove(old));
        drop(old_handle);

        let (new, new_handle) = spawn_into(&tasks, &sink, pending::<()>(), None);
        assert_eq!(
            new.index(),
            old.index(),
            "the new task takes the freed slot"
        );
        let slab = tasks.borrow();
        let slot = slab.get(new).expect("the new task is live");
        assert!(!slot.is_queued() && !slot.is_running(), "{slot:?}");
        drop(slab);
        assert!(
            tasks.borrow_mut().mark_queued(new).is_some(),
            "a first wake of the new task queues a step"
        );
        drop(new_handle);
    });
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
    // The state (the joiner's waker or the result, with its borrow flag), the label,
    // the sink, the done-callback pointer; "the handle is gone" is a state, not a flag
    // beside it. An output of up to two words fits in the state's room.
    let words = |bytes: usize| bytes.div_ceil(size_of::<usize>());
    for (output, bytes) in [
        ("()", size_of::<JoinCell<()>>()),
        ("u64", size_of::<JoinCell<u64>>()),
        ("(u64, u64)", size_of::<JoinCell<(u64, u64)>>()),
    ] {
        assert!(
            words(bytes) <= 9,
            "a join cell of output {output} is {} words",
            words(bytes)
        );
    }
    // A bigger output makes the state bigger.
    assert!(size_of::<JoinCell<[u64; 4]>>() > size_of::<JoinCell<(u64, u64)>>());
}

/// While it polls, reads how many clones of task wakers the slab counts outside
/// itself, then keeps a clone of its own waker and reads again; `Pending` for ever.
struct CountsWakers {
    tasks: std::rc::Rc<RefCell<Tasks<Recorder>>>,
    seen: std::rc::Rc<RefCell<Vec<usize>>>,
    kept: Option<std::task::Waker>,
}

impl std::future::Future for CountsWakers {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        let before = self.tasks.borrow().wakers_held_elsewhere();
        self.kept = Some(cx.waker().clone());
        let after = self.tasks.borrow().wakers_held_elsewhere();
        self.seen.borrow_mut().extend([before, after]);
        std::task::Poll::Pending
    }
}

#[test]
fn a_step_lends_the_tasks_own_waker_and_clones_none() {
    let seen = watchdog_default(|| {
        let tasks = std::rc::Rc::new(RefCell::new(Tasks::new(Arc::new(Recorder::default()))));
        let sink = ExceptionSink::new();
        let seen = std::rc::Rc::new(RefCell::new(Vec::new()));
        let future = CountsWakers {
            tasks: std::rc::Rc::clone(&tasks),
            seen: std::rc::Rc::clone(&seen),
            kept: None,
        };
        let (id, handle) = spawn_into(&tasks, &sink, future, None);
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 0);
        for _ in 0..3 {
            assert_eq!(step(&tasks, id), StepOutcome::Pending);
        }
        // The future keeps the clone it made last; the step kept none.
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 1);
        drop(handle);
        drop(tasks.borrow_mut().drain());
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 0);
        seen.take()
    });
    // Each poll: nothing held elsewhere while the step polls (it lends the task's own
    // waker), then the one clone the future made. The first poll finds none kept yet;
    // later ones find the previous poll's clone until it is replaced.
    assert_eq!(
        seen,
        [0, 1, 1, 1, 1, 1],
        "waker clones counted outside the slab, before and after the future's clone"
    );
}

#[test]
fn cloning_a_label_never_allocates() {
    let clones = watchdog_default(|| {
        let tasks = RefCell::new(Tasks::new(Arc::new(Recorder::default())));
        let sink = ExceptionSink::new();
        let (id, handle) = spawn_into(&tasks, &sink, pending::<()>(), None);
        let labels = [
            Label::from("a static name"),
            Label::from(format!("a name built at run time, {}", 7)),
            Label::Task(id),
        ];
        let counts = labels.map(|label| ALLOC.count(|| std::hint::black_box(label.clone())).1);
        drop(handle);
        counts
    });
    assert_eq!(
        clones,
        [0, 0, 0],
        "a static, a run-time and an unnamed task's label"
    );
}
