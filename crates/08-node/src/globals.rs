//! The rest of Node's globals, and what a callback may ask the loop.

use crate::Phase;
use crate::inner::current;

/// Node's `setImmediate(callback)`: run `callback` in the check phase, right after the
/// next poll. An immediate queued by an immediate waits for the next iteration.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn set_immediate(callback: impl FnOnce() + 'static) {
    current("set_immediate")
        .immediates
        .borrow_mut()
        .push_back(Box::new(callback));
}

/// Queues `callback` in libuv's pending queue. The queue runs at the start of each
/// iteration, before the poll, and again (up to eight rounds) right after the poll, so
/// a callback queued by an I/O callback runs before the check phase. libuv puts there
/// the I/O callbacks it could not run inside the poll (a write that finished at once,
/// some errors); Node has no JavaScript call for it. It is here so the phase can be
/// seen.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn queue_pending(callback: impl FnOnce() + 'static) {
    current("queue_pending")
        .pending
        .borrow_mut()
        .push_back(Box::new(callback));
}

/// Node's `console.log(line)`: the line goes to the run's output,
/// [`RunReport::output`](crate::RunReport::output). (The loop prints nothing itself.)
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn console_log(line: impl Into<String>) {
    let inner = current("console_log");
    inner.output.borrow_mut().push(line.into());
    inner
        .logged_in
        .borrow_mut()
        .push((inner.iteration.get(), inner.phase.get()));
}

/// libuv's `uv_stop`: the loop ends after the current iteration, even with work left.
/// The iteration still ends with its timers phase, as in libuv 1.45 and later.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn stop() {
    current("stop").stopping.set(true);
}

/// The phase running now.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn current_phase() -> Phase {
    current("current_phase").phase.get()
}

/// The iteration running now: 0 during the main script and the timers run before the
/// first iteration, then 1, 2, ...
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn iteration() -> u64 {
    current("iteration").iteration.get()
}

/// The loop's cached time in milliseconds (Node's internal `getLibuvNow`).
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn loop_time() -> u64 {
    current("loop_time").now.get()
}

/// Keeps the thread busy for `ms` milliseconds, as a synchronous JavaScript loop such
/// as `while (Date.now() - start < ms) {}` does: the clock moves, the loop's cached
/// time does not, and nothing else runs meanwhile. On a virtual clock the clock jumps
/// by `ms` (stage 5's `block_for`); on the real clock the thread sleeps that long.
///
/// # Panics
///
/// Outside [`NodeLoop::run`](crate::NodeLoop::run).
pub fn busy_wait(ms: u64) {
    current("busy_wait")
        .clock
        .block_for(std::time::Duration::from_millis(ms));
}
