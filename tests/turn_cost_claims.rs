//! The counts the chapter "What a turn costs" states, asserted on the programs of its
//! example (`crates/oneloop/examples/turn_cost.rs`), run smaller.
//!
//! The example prints timings, which are samples, beside counts, which are not: the
//! turns a program makes, the clock reads and `epoll_wait` calls of its turns, the
//! allocations it makes. These tests run the example's own functions and assert the
//! counts, so that the chapter's sample output cannot drift from the loop.

#[allow(dead_code)] // `main` and the constants belong to the example, not to this test.
#[path = "../crates/oneloop/examples/turn_cost.rs"]
mod example;

use example::{Layer, measure_layer};
use oneloop_testkit::{CountingAllocator, watchdog_default};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

const YIELDS: u64 = 2_000;

#[test]
fn the_yielding_task_makes_the_same_turns_on_every_layer() {
    watchdog_default(|| {
        for layer in Layer::ALL {
            let figures = measure_layer(layer, YIELDS, true);
            // One turn per yield, then three: the task's last step (which wakes
            // main), main's step (which finishes it), and the done callback that
            // stops the loop.
            assert_eq!(
                figures.turns,
                YIELDS + 3,
                "{}: the layers change what a turn costs, not how many there are",
                layer.name()
            );
        }
    });
}

#[test]
fn only_a_pending_timer_makes_a_busy_turn_read_the_clock() {
    watchdog_default(|| {
        for layer in Layer::ALL {
            let figures = measure_layer(layer, YIELDS, true);
            let expected = match layer {
                // One read per turn, to find the timers that came due, and the one
                // `call_later` made to set the timer's deadline.
                Layer::TimersOneTimer => figures.turns as usize + 1,
                _ => 0,
            };
            assert_eq!(
                figures.clock_reads,
                expected,
                "{}: clock reads over {} busy turns",
                layer.name(),
                figures.turns
            );
        }
    });
}

#[test]
fn only_a_registered_fd_makes_a_busy_turn_call_epoll_wait() {
    watchdog_default(|| {
        for layer in Layer::ALL {
            let figures = measure_layer(layer, YIELDS, true);
            let expected = match layer {
                // Every turn after the first looks for I/O with a zero timeout (the
                // socket registers its fd during the first turn, after its park).
                Layer::EpollOneFd => figures.turns as usize - 1,
                _ => 0,
            };
            assert_eq!(
                figures.polls,
                expected,
                "{}: epoll_wait calls over {} busy turns",
                layer.name(),
                figures.turns
            );
        }
    });
}

#[test]
fn a_busy_turn_allocates_nothing_on_any_layer() {
    watchdog_default(|| {
        // A first run sets up what a thread keeps for its loops.
        measure_layer(Layer::Core, 10, false);
        for layer in Layer::ALL {
            // Building the loop and spawning the task allocate the same whatever the
            // yields; so the difference is what the extra turns allocated.
            let (_, short) = ALLOC.count(|| measure_layer(layer, YIELDS, false));
            let (_, long) = ALLOC.count(|| measure_layer(layer, 2 * YIELDS, false));
            assert_eq!(
                long,
                short,
                "{}: {YIELDS} more busy turns allocated {} times",
                layer.name(),
                long.abs_diff(short)
            );
        }
    });
}

#[test]
fn run_an_empty_main_takes_two_turns_fresh_or_reused() {
    watchdog_default(|| {
        // Main's step, then the done callback that stops the loop; closing the loop
        // takes no turn.
        let (_, fresh) = example::fresh_runs(20);
        let (_, reused) = example::reused_runner(20);
        assert_eq!(fresh, 2.0, "oneloop::run of an empty main: turns per call");
        assert_eq!(
            reused, 2.0,
            "one runner given an empty main: turns per call"
        );
    });
}

#[test]
fn awaiting_ready_futures_adds_no_turn_and_a_suspension_adds_one() {
    watchdog_default(|| {
        const AWAITS: u64 = 1_000;
        let (_, inside) = example::inside_one_loop(AWAITS);
        let (_, ready) = example::ready_awaits(AWAITS);
        let (_, suspended) = example::suspensions(AWAITS);
        // A run whose main never suspends takes two turns, however much it awaits.
        assert_eq!(inside, 2, "{AWAITS} awaits of an async fn, in one run");
        assert_eq!(
            ready, 2,
            "{AWAITS} chains of three ready awaits, in one run"
        );
        assert_eq!(
            suspended,
            AWAITS + 2,
            "{AWAITS} yields, in one run: one turn each, and the two of any run"
        );
    });
}
