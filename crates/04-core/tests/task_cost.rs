//! What a task costs: allocations per spawn, the size of its join cell, and the room
//! the ready queue keeps after a burst of first steps.
//!
//! The test binary's global allocator (declared in `suite.rs`) is the test kit's
//! `CountingAllocator`, which counts only on the thread that asks; the loop runs on the
//! watchdog's thread and every count is read there.

use std::mem::size_of;

use oneloop_core::hooks::ReadyQueue;
use oneloop_core::{EventLoop, spawn, yield_now};
use oneloop_task::hooks::JoinCell;
use oneloop_testkit::watchdog_default;

// The counting allocator is the test binary's, declared once in `suite.rs`.
use crate::ALLOC;

const TASKS: usize = 1_000;

#[test]
fn a_spawned_and_joined_task_allocates_its_join_cell_and_its_future_and_nothing_else() {
    let during = watchdog_default(|| {
        let (probe, counted) = ALLOC.count(|| std::hint::black_box(Box::new(1_u64)));
        drop(probe);
        assert!(counted > 0, "the counting allocator counts");

        let mut event_loop = EventLoop::new();
        event_loop
            .run_until_complete(async {
                // One task at a time, twice over: the first round grows the slab and
                // leaves each slot a spare waker for the second.
                let mut during = 0;
                for round in 0..2 {
                    let before = ALLOC.allocations();
                    for i in 0..TASKS {
                        let handle = spawn(async move { i });
                        assert_eq!(handle.await.expect("no panic"), i);
                    }
                    if round == 1 {
                        during = ALLOC.allocations() - before;
                    }
                }
                during
            })
            .expect("main finishes")
    });
    assert!(
        during <= 2 * TASKS,
        "{during} allocations for {TASKS} spawned and joined tasks: more than two per task"
    );
}

#[test]
fn a_task_without_done_callbacks_has_a_join_cell_of_at_most_ten_words() {
    // The done-callback list is one pointer, absent until a callback comes.
    let words = size_of::<JoinCell<()>>() / size_of::<usize>();
    assert!(words <= 10, "a join cell of {words} words");
}

#[test]
fn the_ready_queue_gives_back_its_room_once_a_burst_of_steps_has_run() {
    let (peak, after) = watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let peak = event_loop
            .run_until_complete(async {
                let handles: Vec<_> = (0..10 * ReadyQueue::KEPT_CAPACITY)
                    .map(|i| spawn(async move { i }))
                    .collect();
                let peak = oneloop_core::hooks::with_current(|core| core.ready().capacity())
                    .expect("in the loop");
                for handle in handles {
                    handle.await.expect("no panic");
                }
                yield_now().await;
                peak
            })
            .expect("main finishes");
        (peak, event_loop.ready().capacity())
    });
    assert!(
        peak >= 10 * ReadyQueue::KEPT_CAPACITY,
        "the burst was queued: {peak}"
    );
    assert!(
        after <= ReadyQueue::KEPT_CAPACITY,
        "an empty queue kept room for {after} handles after a burst of {peak}"
    );
}

#[test]
fn a_handle_is_seven_words_and_reads_its_kind_from_its_callback() {
    // The callback (a tag and a fat pointer), the label, the cancel flag's pointer.
    let words = size_of::<oneloop_core::hooks::Handle>().div_ceil(size_of::<usize>());
    assert!(words <= 7, "a handle of {words} words");
    let step = oneloop_core::hooks::Handle::step(oneloop_task::TaskId::new(0, 0), "step".into());
    assert_eq!(step.kind(), "Task");
    let once = oneloop_core::hooks::Handle::once(
        "once".into(),
        Box::new(|| {}),
        oneloop_core::hooks::CancelFlag::new(),
    );
    assert_eq!(once.kind(), "Handle");
}
