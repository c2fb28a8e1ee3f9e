//! Stage 8 of oneloop: Node.js's loop, built beside asyncio's.
//!
//! Stages 4 to 6 built asyncio's loop: one ready queue of handles, a turn that runs the
//! `ntodo` snapshot, timers that move into the queue, a selector at the bottom. Every
//! callback and every task step goes through the same FIFO queue, and a coroutine
//! resumes as one more handle in it. This stage builds the other widely used design,
//! Node's, with a loop core of its own, because its shape is not asyncio's turn:
//!
//! - **Phases.** libuv runs a fixed cycle of phases — pending callbacks, idle/prepare,
//!   poll, check, close callbacks, timers — and each kind of callback waits for its own
//!   phase. `setImmediate` callbacks run in the check phase, right after the poll;
//!   `setTimeout` callbacks in the timers phase, when due. This loop lays the cycle out
//!   as libuv 1.45 and later do (Node 20 ships one): the due timers run once before
//!   the first iteration, and then at the *end* of each iteration, just before the
//!   loop asks whether anything is still alive.
//! - **Two queues that are not phases.** After every callback the loop runs (and after
//!   the main script), Node drains the `process.nextTick` queue, then V8's microtask
//!   queue (promise reactions, `queueMicrotask`), and repeats until both are empty.
//! - **Coroutines resume as microtasks.** An `async function` runs at once up to its
//!   first `await`; a promise reaction, a microtask, resumes it. Here an `async` block
//!   given to [`spawn_async`] is polled at once, and the reaction that delivers a
//!   [`Promise`]'s value polls it again.
//! - **The poll phase blocks on real I/O** through mio, for as long as libuv's rule
//!   allows ([`poll_timeout`]), and the loop ends when nothing is alive — there is no
//!   `run_until_complete`: the main script is the program, and the loop runs after it.
//!
//! Time comes from stage 5's [`Clock`]: a [`RealClock`], or a [`VirtualClock`] that
//! jumps to the deadline when the poll would wait, read in whole milliseconds as libuv
//! reads its clock.
//!
//! Where Rust differs: a JavaScript value needs no `Clone`, a Rust promise's does; a
//! promise that resolves with another promise (and so adopts it) says so by name
//! ([`Resolver::resolve_with`], [`Promise::then_promise`], [`spawn_async_promise`]),
//! since Rust cannot ask whether a value is a promise; there is no rejection. Node's
//! globals are free functions ([`set_timeout`], [`next_tick`], ...) that find the
//! running loop through one thread-local, and panic outside [`NodeLoop::run`], as
//! calling `setTimeout` with no loop has no meaning. Every order the book says Node
//! prints is checked against real Node by `tests/truth_node.rs`; rules that Node's
//! output cannot show (which iteration or phase a callback runs in) are pinned by
//! tests on this loop alone.
//!
//! ```
//! use oneloop_node::{NodeLoop, Promise, console_log, next_tick, set_immediate, set_timeout};
//!
//! let mut node = NodeLoop::with_virtual_clock()?;
//! let report = node.run(|| {
//!     set_timeout(|| console_log("timeout"), 0);
//!     set_immediate(|| console_log("immediate"));
//!     Promise::resolved(()).then(|()| console_log("promise"));
//!     next_tick(|| console_log("tick"));
//!     console_log("main");
//! })?;
//! // The main script, its nextTick, its microtask; then the loop: on the virtual clock
//! // the 1 ms timer is not due when the loop starts, so the check phase comes first.
//! assert_eq!(report.output, ["main", "tick", "promise", "immediate", "timeout"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod drain;
mod globals;
mod inner;
mod io;
mod node_loop;
mod poll_facts;
mod predict;
mod promise;
mod queues;
mod quiz;
mod scenario_list;
mod scenarios;
mod task;
mod timeout;
mod timers;
mod watch;

pub use globals::{
    busy_wait, console_log, current_phase, iteration, loop_time, queue_pending, set_immediate, stop,
};
pub use mio::Interest;
pub use mio::net::{TcpListener, TcpStream};
pub use mio::unix::pipe;
pub use node_loop::{NodeError, NodeLoop, Phase, RunReport, run, run_with};
pub use oneloop_timers::{Clock, RealClock, VirtualClock};
pub use poll_facts::{PollFacts, PollTimeout};
pub use predict::{predict_async_quiz, predict_phases_quiz};
pub use promise::{Await, Promise, Resolver};
pub use queues::{Job, Queues, next_tick, queue_microtask};
pub use quiz::{async_quiz, phases_quiz, run_quiz};
pub use task::{spawn_async, spawn_async_promise};
pub use timeout::poll_timeout;
pub use timers::{
    TimerId, clamp_delay, clear_interval, clear_timeout, ref_timer, refresh_timer, set_interval,
    set_timeout, timer_has_ref, unref_timer,
};
pub use watch::{WatchId, close, once_ready, watch};

/// What this stage lends to the truth suite and the stepper: named scenarios,
/// each with the order real Node gives.
pub mod hooks {
    pub use crate::scenario_list::{
        NodeOrder, PACED_ATTEMPTS, Scenario, kept_pace, run_scenario, scenario, scenarios,
    };
}
