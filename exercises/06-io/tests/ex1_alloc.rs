//! Exercise 1: in steady state, an I/O event allocates nothing.
//!
//! This file has its own counting global allocator (one per test binary). It counts
//! only on the thread that asks, so other tests' threads do not disturb it.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;

use common::pair;
use ex06_io::{Io, new_event_loop};
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
const EVENTS: usize = 1_000;

#[test]
fn ex1_a_reader_event_allocates_nothing_in_steady_state() {
    watchdog_default(|| {
        // The whole stack: timers (none scheduled) over epoll.
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let calls = Rc::new(Cell::new(0usize));
        let (reading, counted) = (Rc::clone(&server), Rc::clone(&calls));
        // One byte per call: the rest stays unread and fires again next turn.
        Io::of(&event_loop)
            .unwrap()
            .add_reader(&*server, move || {
                let mut byte = [0; 1];
                if let Ok(1) = reading.try_read(&mut byte) {
                    counted.set(counted.get() + 1);
                }
            })
            .unwrap();
        client.write_all(&[7; WARM_UP + EVENTS]).unwrap();
        for _ in 0..WARM_UP {
            event_loop.run_once().unwrap();
        }
        let before = allocations();
        for _ in 0..EVENTS {
            event_loop.run_once().unwrap();
        }
        let allocated = allocations() - before;
        assert_eq!(
            calls.get(),
            WARM_UP + EVENTS,
            "one event, one call, per turn"
        );
        assert_eq!(
            allocated, 0,
            "{EVENTS} turns with an I/O event each allocated {allocated} times"
        );
    });
}
