//! Debug mode: reporting handles that held the loop too long.
//!
//! asyncio's debug mode (off by default; on with `PYTHONASYNCIODEBUG=1`,
//! `asyncio.run(main(), debug=True)` or `loop.set_debug(True)`) times every handle and
//! logs `Executing <Handle ...> took 0.250 seconds` for those that ran at least
//! `loop.slow_callback_duration` (0.1 s by default). Mode and threshold are separate
//! knobs: the threshold does nothing while the mode is off.
//!
//! oneloop does the same with an [`Observer`] added to the loop the first time a turn
//! parks with debug mode on. It times handles on the loop's own clock, so in virtual
//! time a `block_for` inside a callback makes it slow, and it reports through the
//! loop's exception handler (the default one writes the line to stderr).

use std::cell::RefCell;
use std::env;
use std::ffi::OsStr;
use std::fmt;
use std::rc::Weak;
use std::time::Duration;

use oneloop_core::hooks::Handle;
use oneloop_core::{Core, ExceptionReport, Label, Observer};

use crate::Timers;

/// The environment variable that turns debug mode on (like `PYTHONASYNCIODEBUG`).
pub const DEBUG_ENV: &str = "ONELOOP_DEBUG";

/// The default slow-callback threshold (asyncio's `slow_callback_duration`, 0.1 s).
pub const DEFAULT_SLOW_CALLBACK_DURATION: Duration = Duration::from_millis(100);

/// What a slow-callback report carries where a panic report carries the panic.
pub const SLOW_CALLBACK: &str = "slow callback (debug mode)";

/// Whether `ONELOOP_DEBUG` asks for debug mode: set, not empty, not `0`.
pub(crate) fn debug_from_env() -> bool {
    asks_for_debug(env::var_os(DEBUG_ENV).as_deref())
}

/// The rule for the variable's value. asyncio turns debug mode on for any non-empty
/// `PYTHONASYNCIODEBUG`, `0` included; here `0` means off.
fn asks_for_debug(value: Option<&OsStr>) -> bool {
    value.is_some_and(|value| !value.is_empty() && value != "0")
}

// ANCHOR: slow_message
/// The line asyncio logs for a slow handle: `Executing <Task main> took 0.250 seconds`.
pub fn slow_callback_message(kind: &str, label: &Label, took: Duration) -> String {
    format!(
        "Executing <{kind} {label}> took {:.3} seconds",
        took.as_secs_f64()
    )
}
// ANCHOR_END: slow_message

/// The observer that times handles in debug mode.
pub(crate) struct SlowCallbacks {
    timers: Weak<Timers>,
    core: Weak<Core>,
    /// The handle running now: its kind, label and start on the loop's clock.
    running: RefCell<Option<(&'static str, Label, Duration)>>,
}

impl SlowCallbacks {
    pub(crate) fn new(timers: Weak<Timers>, core: Weak<Core>) -> Self {
        Self {
            timers,
            core,
            running: RefCell::new(None),
        }
    }
}

impl fmt::Debug for SlowCallbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SlowCallbacks { .. }")
    }
}

// ANCHOR: slow_callbacks
impl Observer for SlowCallbacks {
    fn handle_started(&self, _turn: u64, handle: &Handle) {
        let Some(timers) = self.timers.upgrade() else {
            return;
        };
        let start = timers
            .debug()
            .then(|| (handle.kind(), handle.label().clone(), timers.time()));
        *self.running.borrow_mut() = start;
    }

    fn handle_ran(&self, _turn: u64, _label: &Label, _elapsed: Duration) {
        let Some((kind, label, start)) = self.running.borrow_mut().take() else {
            return;
        };
        let (Some(timers), Some(core)) = (self.timers.upgrade(), self.core.upgrade()) else {
            return;
        };
        // The loop's clock, not the core's `elapsed`: in virtual time only the loop's
        // clock knows that a callback blocked.
        let took = timers.time().saturating_sub(start);
        if timers.debug() && took >= timers.slow_callback_duration() {
            core.report(&ExceptionReport {
                message: slow_callback_message(kind, &label, took),
                label,
                panic: SLOW_CALLBACK.to_owned(),
            });
        }
    }
}
// ANCHOR_END: slow_callbacks

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_env_values_empty_and_zero_are_off() {
        let on = |value: Option<&str>| asks_for_debug(value.map(OsStr::new));
        assert!(!on(None));
        assert!(!on(Some("")));
        assert!(!on(Some("0")));
        assert!(on(Some("1")));
        assert!(on(Some("yes")));
    }
}
