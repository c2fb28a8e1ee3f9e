//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-core --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own.

use oneloop_testkit::CountingAllocator;

/// The binary's one global allocator, for `observer_alloc` and `task_cost`. It counts
/// per thread, so the other tests of the binary, on their own threads, stay out of
/// their counts.
#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

#[path = "cell_outlives_loop.rs"]
mod cell_outlives_loop;
#[path = "done_callbacks.rs"]
mod done_callbacks;
#[path = "extensions.rs"]
mod extensions;
#[path = "gather_wakes.rs"]
mod gather_wakes;
#[path = "observer_alloc.rs"]
mod observer_alloc;
#[path = "panic_payload.rs"]
mod panic_payload;
#[path = "sample_counts.rs"]
mod sample_counts;
#[path = "stall.rs"]
mod stall;
#[path = "task_cost.rs"]
mod task_cost;
#[path = "wake_search.rs"]
mod wake_search;
