//! Exercise 2: in steady state, a turn of yielding tasks allocates nothing.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks, so other tests' threads do not disturb it.

use ex04_core::{EventLoop, yield_now};
use oneloop_testkit::{CountingAllocator, watchdog_default};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

const WARM_UP: usize = 100;
const ROUND_TRIPS: usize = 10_000;

#[test]
fn ex2_yield_now_round_trips_allocate_nothing_in_steady_state() {
    watchdog_default(|| {
        let (probe, counted) = ALLOC.count(|| std::hint::black_box(Box::new(1_u64)));
        drop(probe);
        assert!(counted > 0, "the counting allocator counts");

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
        let ((), during) = ALLOC.count(|| {
            for _ in 0..ROUND_TRIPS {
                event_loop.run_once().unwrap();
            }
        });
        assert_eq!(
            during, 0,
            "{during} allocations over {ROUND_TRIPS} turns of two yielding tasks"
        );
    });
}
