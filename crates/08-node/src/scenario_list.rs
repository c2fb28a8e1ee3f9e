//! The list of scenarios: each a script in `tests/node/<name>.js` and a program in
//! `scenarios.rs`, and whether Node's order is fixed.

use crate::scenarios::{
    async_classic, async_return_then, async_returns_promise, async_with_timers,
    await_promise_vs_adopt, await_vs_then_chain, clear_due_timer, close_after_check,
    close_from_close, close_microtasks, close_order, delays_clamped, every_phase_from_io,
    immediate_in_immediate, immediate_lets_io_in, interval_behind_its_list, interval_cleared,
    interval_cleared_by_its_tick, interval_cleared_by_list_mate, interval_slow_callback,
    interval_unrefs_itself, interval_zero_clamped, io_timeout_vs_immediate, late_loop_runs_lists,
    main_busy_then_race, main_timeout_vs_immediate, main_timer_then_busy,
    microtasks_between_timers, ref_from_callback, refresh_cleared_timer, refresh_due_timer,
    refresh_in_own_interval, refresh_interval_from_timer, refresh_keeps_unref,
    refresh_timer_scenario, same_deadline_lists, tick_before_promise,
    tick_in_microtask_in_immediate, tick_inside_immediate, tick_microtask_nesting,
    timer_joins_its_own_list, timer_set_in_check, timer_timeout_vs_immediate, timers_by_deadline,
    timers_phase_reads_clock_once, unref_interval, unref_timer_scenario,
};
use crate::{Clock, NodeError, NodeLoop};

/// What Node prints, run after run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeOrder {
    /// The same order every run: this loop must print exactly it, on either clock.
    Fixed,
    /// One of these orders, depending on timing. This loop prints the first on the
    /// virtual clock, and one of them on the real clock.
    Either(&'static [&'static [&'static str]]),
    /// `order` every run in which the machine keeps pace. The scenario has a margin of
    /// a few tens of milliseconds between two callbacks; a stall of the whole process
    /// longer than that only ever delays the earlier one, and gives one of `stalled`.
    /// The virtual clock never stalls: this loop prints `order` on it. A real run
    /// (Node, or this loop on the real clock) prints `order` or one of `stalled`, and at
    /// least one of [`PACED_ATTEMPTS`] runs prints `order`.
    Paced {
        /// The order of a run that keeps pace.
        order: &'static [&'static str],
        /// The orders a stall longer than the margin can give.
        stalled: &'static [&'static [&'static str]],
    },
}

/// How many real runs of a [`NodeOrder::Paced`] scenario a check may make before one
/// keeps pace. A loaded machine may stall a run past the margin, even a few in a row
/// (seen at a load average of 10 on two cores); five in a row mean the order itself is
/// wrong. A run that keeps pace ends the check, so the attempts cost only when stalled.
pub const PACED_ATTEMPTS: usize = 5;

/// Checks a [`NodeOrder::Paced`] scenario on a real clock. Runs `real` up to
/// [`PACED_ATTEMPTS`] times: every run must print `order` or one of `stalled` (a stall
/// only ever delays), and one run must print `order`. Panics otherwise, naming `what`
/// (which runtime, which scenario): a check for the truth suites.
pub fn kept_pace(
    what: &str,
    order: &[&str],
    stalled: &[&[&str]],
    mut real: impl FnMut() -> Vec<String>,
) {
    for _ in 0..PACED_ATTEMPTS {
        let lines = real();
        if lines == order {
            return;
        }
        assert!(
            stalled.iter().any(|late| lines == *late),
            "{what} printed {lines:?}, neither {order:?} nor a stalled order {stalled:?}"
        );
    }
    panic!("{what}: {PACED_ATTEMPTS} runs, none printed {order:?}");
}

/// One scenario.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// The script's name: `tests/node/<name>.js`.
    pub name: &'static str,
    /// What it shows, in one line.
    pub about: &'static str,
    /// Whether Node's order is fixed.
    pub node: NodeOrder,
    /// The main script, for this loop.
    pub script: fn(),
}

/// Runs `scenario` on a fresh loop with `clock`, and returns what it printed.
pub fn run_scenario(scenario: &Scenario, clock: impl Clock) -> Result<Vec<String>, NodeError> {
    let mut node = NodeLoop::with_clock(clock)?;
    Ok(node.run(scenario.script)?.output)
}

/// The scenario called `name`.
pub fn scenario(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// Every scenario.
pub fn scenarios() -> &'static [Scenario] {
    SCENARIOS
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "tick_before_promise",
        about: "after the main script: all nextTicks, then all microtasks",
        node: NodeOrder::Fixed,
        script: tick_before_promise,
    },
    Scenario {
        name: "microtasks_between_timers",
        about: "two timers due together: the queues drain between their callbacks",
        node: NodeOrder::Fixed,
        script: microtasks_between_timers,
    },
    Scenario {
        name: "tick_inside_immediate",
        about: "a nextTick queued in an immediate runs before the next immediate",
        node: NodeOrder::Fixed,
        script: tick_inside_immediate,
    },
    Scenario {
        name: "immediate_in_immediate",
        about: "an immediate queued by an immediate runs in the next iteration",
        node: NodeOrder::Fixed,
        script: immediate_in_immediate,
    },
    Scenario {
        name: "io_timeout_vs_immediate",
        about: "in an I/O callback, the immediate runs before the 0 ms timer",
        node: NodeOrder::Fixed,
        script: io_timeout_vs_immediate,
    },
    Scenario {
        name: "main_timeout_vs_immediate",
        about: "in the main script, the 0 ms timer and the immediate race",
        node: NodeOrder::Either(&[&["immediate", "timeout"], &["timeout", "immediate"]]),
        script: main_timeout_vs_immediate,
    },
    Scenario {
        name: "main_busy_then_race",
        about: "50 ms of busy main script, then the 0 ms timer and the immediate: still a race",
        node: NodeOrder::Either(&[&["immediate", "timeout"], &["timeout", "immediate"]]),
        script: main_busy_then_race,
    },
    Scenario {
        name: "main_timer_then_busy",
        about: "the 0 ms timer and the immediate, then 50 ms of busy main script: timer first",
        node: NodeOrder::Fixed,
        script: main_timer_then_busy,
    },
    Scenario {
        name: "timer_timeout_vs_immediate",
        about: "in a timer callback, the immediate runs before the new 0 ms timer",
        node: NodeOrder::Fixed,
        script: timer_timeout_vs_immediate,
    },
    Scenario {
        name: "async_classic",
        about: "an async function runs at once up to its first await",
        node: NodeOrder::Fixed,
        script: async_classic,
    },
    Scenario {
        name: "await_vs_then_chain",
        about: "each await costs one microtask, as each link of a then chain",
        node: NodeOrder::Fixed,
        script: await_vs_then_chain,
    },
    Scenario {
        name: "tick_microtask_nesting",
        about: "ticks queued by ticks first; a tick queued by a microtask waits",
        node: NodeOrder::Fixed,
        script: tick_microtask_nesting,
    },
    Scenario {
        name: "async_with_timers",
        about: "async functions awaiting timers, beside a plain timer",
        node: NodeOrder::Fixed,
        script: async_with_timers,
    },
    Scenario {
        name: "interval_cleared",
        about: "an interval, a nextTick per run, cleared from its third run",
        node: NodeOrder::Fixed,
        script: interval_cleared,
    },
    Scenario {
        name: "interval_slow_callback",
        about: "a 100 ms interval with an 80 ms callback keeps its pace beside a 480 ms timer",
        node: NodeOrder::Paced {
            order: &["tick 1", "tick 2", "tick 3", "tick 4", "timeout"],
            // A stall before the fourth run (or the third) puts it after the timer.
            stalled: &[
                &["tick 1", "tick 2", "tick 3", "timeout", "tick 4"],
                &["tick 1", "tick 2", "timeout", "tick 3", "tick 4"],
            ],
        },
        script: interval_slow_callback,
    },
    Scenario {
        name: "close_after_check",
        about: "a close callback runs in the close phase, after the check phase",
        node: NodeOrder::Fixed,
        script: close_after_check,
    },
    Scenario {
        name: "async_return_then",
        about: "an async function with no await is fulfilled when it returns",
        node: NodeOrder::Fixed,
        script: async_return_then,
    },
    Scenario {
        name: "async_returns_promise",
        about: "a promise returned by an async function or a then callback is adopted",
        node: NodeOrder::Fixed,
        script: async_returns_promise,
    },
    Scenario {
        name: "await_promise_vs_adopt",
        about: "awaiting a fulfilled promise costs one microtask; resolving with it, three",
        node: NodeOrder::Fixed,
        script: await_promise_vs_adopt,
    },
    Scenario {
        name: "async_quiz",
        about: "the second quiz: awaits, then chains, a tick and a timer",
        node: NodeOrder::Fixed,
        script: crate::async_quiz,
    },
    Scenario {
        name: "timers_by_deadline",
        about: "timers run by deadline, not by the order they were set",
        node: NodeOrder::Fixed,
        script: timers_by_deadline,
    },
    Scenario {
        name: "late_loop_runs_lists",
        about: "a late loop runs one duration's overdue timers before the next duration's",
        node: NodeOrder::Fixed,
        script: late_loop_runs_lists,
    },
    Scenario {
        name: "interval_behind_its_list",
        about: "an interval re-armed behind a later timer of its list runs after it",
        node: NodeOrder::Fixed,
        script: interval_behind_its_list,
    },
    Scenario {
        name: "unref_timer",
        about: "an unref'd timer runs only while something else keeps the loop alive",
        node: NodeOrder::Fixed,
        script: unref_timer_scenario,
    },
    Scenario {
        name: "interval_cleared_by_its_tick",
        about: "an interval re-armed after its run is cleared by the nextTick that run queued",
        node: NodeOrder::Fixed,
        script: interval_cleared_by_its_tick,
    },
    Scenario {
        name: "refresh_due_timer",
        about: "a due timer refreshed by an earlier one of its list leaves the phase",
        node: NodeOrder::Paced {
            order: &["A 20 ms refreshes B", "C 30 ms", "B 20 ms, refreshed"],
            // A stall of 10 ms before the 30 ms timer is set puts it last.
            stalled: &[&["A 20 ms refreshes B", "B 20 ms, refreshed", "C 30 ms"]],
        },
        script: refresh_due_timer,
    },
    Scenario {
        name: "unref_interval",
        about: "an unref'd interval runs while a ref'd timer keeps the loop alive",
        node: NodeOrder::Paced {
            order: &["hasRef false", "interval 1", "interval 2", "100 ms"],
            // A first run late past 60 ms puts the second after the 100 ms timer, and
            // the loop ends before it.
            stalled: &[&["hasRef false", "interval 1", "100 ms"]],
        },
        script: unref_interval,
    },
    Scenario {
        name: "refresh_timer",
        about: "refresh() re-arms a 200 ms timer from 100 ms: it runs at 300 ms",
        node: NodeOrder::Paced {
            order: &[
                "100 ms: refresh",
                "250 ms",
                "refreshed 200 ms timer",
                "350 ms",
            ],
            // A stall of the refreshing callback past 50 ms puts the timer after 350 ms.
            stalled: &[&[
                "100 ms: refresh",
                "250 ms",
                "350 ms",
                "refreshed 200 ms timer",
            ]],
        },
        script: refresh_timer_scenario,
    },
    Scenario {
        name: "delays_clamped",
        about: "0 ms and 2^31 ms are read as 1 ms: they join the 1 ms list",
        node: NodeOrder::Fixed,
        script: delays_clamped,
    },
    Scenario {
        name: "timers_phase_reads_clock_once",
        about: "a timer overdue by the end of a busy timer waits for the next timers phase",
        node: NodeOrder::Paced {
            order: &["10 ms, busy 100 ms", "immediate", "60 ms"],
            // A stall of 50 ms before the first timers phase puts both timers in it.
            stalled: &[&["10 ms, busy 100 ms", "60 ms", "immediate"]],
        },
        script: timers_phase_reads_clock_once,
    },
    Scenario {
        name: "same_deadline_lists",
        about: "two lists due at the same time: the one whose expiry moved last runs last",
        node: NodeOrder::Either(&[
            &["T1 10 ms", "U 7 ms, set at 8", "T2 10 ms, set at 5"],
            &["T1 10 ms", "T2 10 ms, set at 5", "U 7 ms, set at 8"],
        ]),
        script: same_deadline_lists,
    },
    Scenario {
        name: "clear_due_timer",
        about: "a due timer cleared by an earlier one in the same phase does not run",
        node: NodeOrder::Fixed,
        script: clear_due_timer,
    },
    Scenario {
        name: "refresh_in_own_interval",
        about: "an interval refreshed from its own callback keeps its pace",
        node: NodeOrder::Paced {
            order: &["run 1", "run 2", "240 ms", "run 3"],
            // A stall of 40 ms before the second run puts it after the timer.
            stalled: &[&["run 1", "240 ms", "run 2", "run 3"]],
        },
        script: refresh_in_own_interval,
    },
    Scenario {
        name: "close_order",
        about: "two handles closed in one callback: the close phase runs the last closed first",
        node: NodeOrder::Fixed,
        script: close_order,
    },
    Scenario {
        name: "close_microtasks",
        about: "ticks and promises queued by a close callback run before the next one",
        node: NodeOrder::Fixed,
        script: close_microtasks,
    },
    Scenario {
        name: "tick_in_microtask_in_immediate",
        about: "a nextTick queued by a microtask in an immediate waits for the microtasks, then runs before the next immediate",
        node: NodeOrder::Fixed,
        script: tick_in_microtask_in_immediate,
    },
    Scenario {
        name: "interval_zero_clamped",
        about: "setInterval(f, 0) repeats every 1 ms, in the 1 ms list",
        node: NodeOrder::Fixed,
        script: interval_zero_clamped,
    },
    Scenario {
        name: "interval_cleared_by_list_mate",
        about: "an interval re-armed in its list is cleared by the next timer of that list",
        node: NodeOrder::Fixed,
        script: interval_cleared_by_list_mate,
    },
    Scenario {
        name: "ref_from_callback",
        about: "an unref'd timer ref'd again from a callback keeps the loop alive",
        node: NodeOrder::Fixed,
        script: ref_from_callback,
    },
    Scenario {
        name: "timer_set_in_check",
        about: "a 0 ms timer set by a busy immediate runs at the end of the iteration",
        node: NodeOrder::Fixed,
        script: timer_set_in_check,
    },
    Scenario {
        name: "every_phase_from_io",
        about: "from a data callback: tick, promise, immediate, close, then the timer",
        node: NodeOrder::Fixed,
        script: every_phase_from_io,
    },
    Scenario {
        name: "refresh_keeps_unref",
        about: "a refreshed unref'd timer stays unref'd: the loop ends without it",
        node: NodeOrder::Fixed,
        script: refresh_keeps_unref,
    },
    Scenario {
        name: "interval_unrefs_itself",
        about: "an interval that unrefs itself, the last thing alive, ends the loop",
        node: NodeOrder::Fixed,
        script: interval_unrefs_itself,
    },
    Scenario {
        name: "refresh_cleared_timer",
        about: "refresh() of a cleared timer does not arm it again",
        node: NodeOrder::Fixed,
        script: refresh_cleared_timer,
    },
    Scenario {
        name: "timer_joins_its_own_list",
        about: "a timer set by a timer of its list waits its whole duration, behind a later list",
        node: NodeOrder::Fixed,
        script: timer_joins_its_own_list,
    },
    Scenario {
        name: "refresh_interval_from_timer",
        about: "an interval refreshed by another timer runs its duration after the refresh",
        node: NodeOrder::Paced {
            order: &[
                "30 ms refreshes interval",
                "75 ms",
                "interval 1",
                "120 ms",
                "interval 2",
            ],
            // A stall of 30 ms in the refreshing callback puts the first run after
            // the 120 ms timer.
            stalled: &[&[
                "30 ms refreshes interval",
                "75 ms",
                "120 ms",
                "interval 1",
                "interval 2",
            ]],
        },
        script: refresh_interval_from_timer,
    },
    Scenario {
        name: "immediate_lets_io_in",
        about: "a chain of immediates lets the poll phase in between: data before immediate 2",
        node: NodeOrder::Fixed,
        script: immediate_lets_io_in,
    },
    Scenario {
        name: "close_from_close",
        about: "a handle closed by a close callback waits for the next close phase",
        node: NodeOrder::Fixed,
        script: close_from_close,
    },
];
