//! Exercise 2: in steady state, a turn of yielding tasks allocates nothing.
//!
//! This file has its own counting global allocator (one per test binary). It counts
//! only on the thread that asks, so other tests' threads do not disturb it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ex04_core::{EventLoop, yield_now};
use oneloop_testkit::watchdog_default;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // During thread teardown the counter may be gone; such allocations do not matter.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every method forwards to the system allocator with the caller's arguments,
// so the system allocator's guarantees are ours; counting touches no allocated memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller upholds `alloc`'s contract; we pass it on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: `ptr` and `layout` come from this allocator, which is the system's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, which is the system's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const WARM_UP: usize = 100;
const ROUND_TRIPS: usize = 10_000;

#[test]
fn ex2_yield_now_round_trips_allocate_nothing_in_steady_state() {
    watchdog_default(|| {
        let probe = allocations();
        drop(std::hint::black_box(Box::new(1_u64)));
        assert!(allocations() > probe, "the counting allocator counts");

        let mut event_loop = EventLoop::new();
        // Two tasks ping-pong: each turn runs one step of each, each step yields once.
        for _ in 0..2 {
            drop(event_loop.spawn(async {
                for _ in 0..(WARM_UP + ROUND_TRIPS + 10) {
                    yield_now().await;
                }
            }));
        }
        for _ in 0..WARM_UP {
            event_loop.run_once().unwrap();
        }
        let before = allocations();
        for _ in 0..ROUND_TRIPS {
            event_loop.run_once().unwrap();
        }
        let during = allocations() - before;
        assert_eq!(
            during, 0,
            "{during} allocations over {ROUND_TRIPS} turns of two yielding tasks"
        );
    });
}
