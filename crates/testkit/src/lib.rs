//! The shared test kit of oneloop: small, honest instruments for async tests.
//!
//! Every stage's tests need the same few things, and writing them once keeps each
//! test about its stage:
//!
//! - [`watchdog`] runs a test body on its own thread and turns a hang (a lost wakeup,
//!   a loop that never stops) into an ordinary test failure after a bounded time.
//! - [`cpu_watchdog`] bounds instead the CPU time of a body that only computes, so that
//!   a cost that grows too fast fails and a loaded machine does not.
//! - [`CountingWaker`] is a waker that counts how often it was woken, and how many of
//!   its clones are alive.
//! - [`CloneCountingWaker`] also counts clones, through a hand-written vtable.
//! - [`PollCounter`] wraps a future and counts its polls.
//! - [`SleepProbe`] lets one thread wait until another sleeps in the kernel, so that
//!   a wake is sent to a thread that is really parked.
//! - [`DropFlag`] is a value that records when it is dropped, to observe cleanup.
//! - [`panic_text`] gives the text of a caught panic, for tests of required messages.
//! - [`CountingAllocator`] is a global allocator that counts a thread's allocations
//!   and the bytes they ask for, to check that a loop's steady state allocates nothing
//!   and that a parser reserves no more than its input could fill.
//! - [`rerun_alone`] runs one test of the binary again in a child process of its own,
//!   for a test that sets something process-wide or counts on the next fd number;
//!   [`alone`] does it for a test whose whole body needs the process to itself;
//!   [`fill_fd_table`] makes such a child run out of file descriptors.
//!
//! ```
//! use std::time::Duration;
//! use oneloop_testkit::{watchdog, CountingWaker};
//!
//! watchdog(Duration::from_secs(5), || {
//!     let counter = CountingWaker::new();
//!     let waker = counter.waker();
//!     waker.wake_by_ref();
//!     assert_eq!(counter.wakes(), 1);
//! });
//! ```
// Unsafe only where it is unavoidable: a global allocator (see `counting_alloc`) and a
// waker whose clones can be counted (see `clone_counting_waker`).
#![deny(unsafe_code)]

mod asleep;
#[allow(unsafe_code)]
mod clone_counting_waker;
#[allow(unsafe_code)]
mod counting_alloc;
mod counting_waker;
mod cpu_watchdog;
mod drop_flag;
mod panic_text;
mod poll_counter;
mod rerun;
mod watchdog;

pub use asleep::SleepProbe;
pub use clone_counting_waker::CloneCountingWaker;
pub use counting_alloc::CountingAllocator;
pub use counting_waker::CountingWaker;
pub use cpu_watchdog::{WALL_BACKSTOP, cpu_watchdog};
pub use drop_flag::{DropFlag, DropGuard};
pub use panic_text::panic_text;
pub use poll_counter::{PollCount, PollCounter};
pub use rerun::{alone, fill_fd_table, rerun_alone, test_name};
pub use watchdog::{DEFAULT_LIMIT, watchdog, watchdog_default};
