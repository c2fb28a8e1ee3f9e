//! What one sleep costs in allocations and bytes, counted.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks. The loop runs on the watchdog's thread, and every
//! count below is read on that thread, before and after the awaits it covers.

use std::time::Duration;

use oneloop_testkit::{CountingAllocator, watchdog_default};
use oneloop_timers::hooks::TimerEntry;
use oneloop_timers::{Scheduled, sleep, virtual_time_loop};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

/// Sleeps before counting: the heap, the ready queue and the due list grow to their
/// working size here, so the count below sees the sleeps alone.
const WARM_UP: usize = 100;

const SLEEPS: usize = 1_000;

#[test]
fn a_sleep_allocates_its_timer_entry_and_nothing_else() {
    let during = watchdog_default(|| {
        let (probe, counted) = ALLOC.count(|| std::hint::black_box(Box::new(1_u64)));
        drop(probe);
        assert!(counted > 0, "the counting allocator counts");

        let mut event_loop = virtual_time_loop();
        event_loop
            .run_until_complete(async {
                for _ in 0..WARM_UP {
                    sleep(Duration::from_millis(1)).await;
                }
                let before = ALLOC.allocations();
                for _ in 0..SLEEPS {
                    sleep(Duration::from_millis(1)).await;
                }
                ALLOC.allocations() - before
            })
            .expect("main finishes")
    });
    // One per sleep: the shared entry (deadline, label, flags, the task's waker). The
    // cancel flag its handle carries comes from the layer's spares, given back when the
    // timer fires; no wakeup cell, no boxed callback.
    assert!(
        during <= SLEEPS,
        "{during} allocations for {SLEEPS} sleeps: more than one per sleep"
    );
}

#[test]
fn a_timer_entry_takes_96_bytes_and_its_heap_slot_24() {
    // The entry: id, deadline, label, the count it bumps, the action, its flags, and
    // the cancel flag of its handle while that handle is queued.
    let entry = size_of::<TimerEntry>();
    assert!(entry <= 96, "a timer entry takes {entry} bytes");
    // The heap's slot: the key (deadline in nanoseconds, sequence) and the entry's `Rc`.
    let slot = size_of::<Scheduled>();
    assert!(slot <= 24, "a heap slot takes {slot} bytes");
}
