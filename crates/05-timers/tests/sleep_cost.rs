//! What one sleep costs in allocations and bytes, counted.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks. The loop runs on the watchdog's thread, and every
//! count below is read on that thread, before and after the awaits it covers.

use std::rc::Rc;
use std::task::Waker;
use std::time::Duration;

use oneloop_core::Label;
use oneloop_testkit::{CountingAllocator, watchdog_default};
use oneloop_timers::hooks::TimerEntry;
use oneloop_timers::{LoopTimers, Scheduled, Timers, VirtualClock, sleep, virtual_time_loop};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

/// Sleeps before counting: the heap and the ready queue grow to their working size here, so the count below sees the sleeps alone.
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
    // One per sleep: the shared entry (deadline, label, flags, the task's waker), which
    // is also its handle's callback and cancel flag; no wakeup cell, no boxed callback.
    assert!(
        during <= SLEEPS,
        "{during} allocations for {SLEEPS} sleeps: more than one per sleep"
    );
}

/// More timers due in one turn than the ready queue keeps room for between bursts.
const BURST: usize = 2_000;

#[test]
fn a_burst_of_due_timers_queues_its_handles_without_allocating() {
    let during = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let timers = event_loop.timers();
        for _ in 0..BURST {
            let _ = timers.wake_later_named(Duration::from_millis(1), "sleep", Waker::noop());
        }
        // One turn moves all of them to the ready queue, the next runs their handles.
        let ((), during) = ALLOC.count(|| {
            event_loop
                .run_until_complete(sleep(Duration::from_millis(2)))
                .expect("main finishes");
        });
        during
    });
    // A due timer is its own handle's callback and cancel flag: queuing it allocates
    // nothing. What is left is the main task and its sleep, and the ready queue
    // doubling its room on the way to 2,000 handles.
    assert!(
        during <= 40,
        "{during} allocations while {BURST} timers came due: their handles allocate"
    );
}

#[test]
fn a_timer_entry_takes_72_bytes_and_its_heap_slot_16() {
    // The entry: id, deadline in nanoseconds, the label (a static name in place), the
    // count it bumps, the action, and its four flags in one byte.
    let entry = size_of::<TimerEntry>();
    assert!(entry <= 72, "a timer entry takes {entry} bytes");
    // The heap's slot: the deadline in nanoseconds and the entry's `Rc` (the sequence
    // number that breaks a tie is the entry's id).
    let slot = size_of::<Scheduled>();
    assert!(slot <= 16, "a heap slot takes {slot} bytes");
}

#[test]
fn a_static_label_costs_no_allocation_and_a_built_one_a_box() {
    let timers = Timers::new(Rc::new(VirtualClock::new()));
    let later = Duration::from_secs(1);
    // The first push gives the heap its room; the pushes counted below fit in it.
    let _warm = timers.call_later(later, || {});
    // A closure that captures nothing is boxed without an allocation: the entry alone.
    let (plain, entry_only) = ALLOC.count(|| timers.call_later_named(later, "tick", || {}));
    let name = Label::from(String::from("built"));
    let (built, boxed) = ALLOC.count(|| timers.call_later_named(later, name, || {}));
    assert_eq!(entry_only, 1, "a static label takes no allocation");
    assert_eq!(boxed, 2, "a label built at run time is boxed");
    assert_eq!(plain.label().to_string(), "tick");
    assert_eq!(built.label().to_string(), "built");
}

#[test]
fn a_sleep_never_polled_registers_no_timer_and_allocates_nothing() {
    let (unpolled, polled) = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        event_loop
            .run_until_complete(async {
                let timers = Timers::current().expect("a timer layer");
                // Made and dropped without a poll: no timer, no allocation.
                let ((), allocations) = ALLOC.count(|| {
                    let nap = sleep(Duration::from_millis(100));
                    assert!(nap.timer().is_none(), "no timer before the first poll");
                    drop(nap);
                });
                let unpolled = (timers.scheduled(), allocations);
                // The first poll registers it.
                let mut nap = Box::pin(sleep(Duration::from_millis(100)));
                std::future::poll_fn(|cx| {
                    assert!(nap.as_mut().poll(cx).is_pending());
                    std::task::Poll::Ready(())
                })
                .await;
                let polled = (timers.scheduled(), nap.timer().is_some());
                (unpolled, polled)
            })
            .expect("main finishes")
    });
    assert_eq!(unpolled, (0, 0), "a sleep never polled costs nothing");
    assert_eq!(polled, (1, true), "the first poll registers the timer");
}
