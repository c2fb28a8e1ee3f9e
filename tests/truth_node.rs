//! The Node truth suite: every scenario in `tests/node/<name>.js` runs on real Node and
//! on oneloop's Node-style loop (`oneloop_node::hooks::scenarios`), and what they print must
//! be the same lines in the same order. Only orders are compared, never times.
//!
//! Each oneloop scenario runs twice: on the virtual clock and on the real one. Where
//! Node's order depends on timing (`NodeOrder::Either`), Node may print any of the
//! listed orders, the virtual clock must give the first, and the real clock any.
//!
//! # Adding a scenario
//!
//! 1. Write `tests/node/<name>.js`, a CommonJS script that prints with `console.log`.
//! 2. Write the same program in `crates/08-node/src/scenarios.rs` and list it there.
//! 3. Add `<name>` to `LISTED` below and a `#[test] fn <name>` calling `check`: the
//!    book's claims name these functions as their evidence.
//!
//! `node` must be on the PATH; without it every test here fails, saying how to get it.

mod external;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use external::Interpreter;

use oneloop_node::hooks::{NodeOrder, run_scenario, scenario, scenarios};
use oneloop_node::{Clock, RealClock, VirtualClock};
use oneloop_testkit::watchdog;

/// How long one Node script may run before it is killed.
const NODE_LIMIT: Duration = Duration::from_secs(10);

/// How long oneloop's side of a scenario may run (the same bound as the asyncio suite's).
const ONELOOP_LIMIT: Duration = oneloop_testkit::DEFAULT_LIMIT;

/// Node, as every machine here and CI has it.
const NODE: Interpreter = Interpreter {
    program: "node",
    missing: "node is required: the Node truth suite runs every scenario on real \
              Node.js (v20, as in CI) and compares. Install it and put `node` on the \
              PATH: on Debian or Ubuntu, `apt-get install nodejs`; elsewhere, the \
              installer from nodejs.org.",
    expected: "v20.",
    suite: "truth_node",
};

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node")
}

/// `node --version`, asked once per test run and shown on stderr, so every run says
/// which Node it checked against.
fn node_version() -> Result<String, String> {
    static VERSION: OnceLock<Result<String, String>> = OnceLock::new();
    VERSION.get_or_init(|| NODE.announce_version()).clone()
}

/// Runs `tests/node/<name>.js` and returns the lines it printed. No `NODE_OPTIONS`
/// from the environment may change the run.
fn run_node(name: &str) -> Result<Vec<String>, String> {
    node_version()?;
    let script = scripts_dir().join(format!("{name}.js"));
    NODE.run(&[], &script, &["NODE_OPTIONS"], NODE_LIMIT)
}

/// Runs scenario `name` on Node and on both of oneloop's clocks, and compares.
fn check(name: &str) {
    let node = run_node(name).unwrap_or_else(|problem| panic!("{problem}"));
    let scenario = scenario(name).unwrap_or_else(|| panic!("no oneloop scenario {name}"));
    fn ours<C: Clock + Default>(
        name: &str,
        scenario: oneloop_node::hooks::Scenario,
    ) -> Vec<String> {
        // The clock is made on the watchdog's thread, where the loop runs.
        watchdog(ONELOOP_LIMIT, move || run_scenario(&scenario, C::default()))
            .unwrap_or_else(|e| panic!("{name} failed on oneloop: {e}"))
    }
    let on_virtual = ours::<VirtualClock>(name, *scenario);
    let on_real = ours::<RealClock>(name, *scenario);
    match scenario.node {
        NodeOrder::Fixed => {
            for (clock, ours) in [("virtual", &on_virtual), ("real", &on_real)] {
                if let Err(diff) = external::side_by_side("node", &node, ours) {
                    panic!("{name}: oneloop on the {clock} clock and node disagree; {diff}");
                }
            }
        }
        NodeOrder::Either(orders) => {
            let allowed = |lines: &[String]| orders.iter().any(|order| lines == *order);
            assert!(
                allowed(&node),
                "{name}: node printed {node:?}, not one of {orders:?}"
            );
            assert_eq!(
                on_virtual, orders[0],
                "{name}: oneloop's virtual clock order"
            );
            assert!(
                allowed(&on_real),
                "{name}: oneloop (real clock) printed {on_real:?}"
            );
        }
    }
}

/// The scenarios with a test of their own here (kept equal to the scripts).
const LISTED: &[&str] = &[
    "tick_before_promise",
    "microtasks_between_timers",
    "tick_inside_immediate",
    "immediate_in_immediate",
    "io_timeout_vs_immediate",
    "main_timeout_vs_immediate",
    "main_busy_then_race",
    "main_timer_then_busy",
    "timer_timeout_vs_immediate",
    "async_classic",
    "await_vs_then_chain",
    "tick_microtask_nesting",
    "async_with_timers",
    "interval_cleared",
    "interval_slow_callback",
    "close_after_check",
    "async_return_then",
    "async_returns_promise",
    "async_quiz",
    "timers_by_deadline",
];

#[test]
fn tick_before_promise() {
    check("tick_before_promise");
}

#[test]
fn microtasks_between_timers() {
    check("microtasks_between_timers");
}

#[test]
fn tick_inside_immediate() {
    check("tick_inside_immediate");
}

#[test]
fn immediate_in_immediate() {
    check("immediate_in_immediate");
}

#[test]
fn io_timeout_vs_immediate() {
    check("io_timeout_vs_immediate");
}

#[test]
fn main_timeout_vs_immediate() {
    check("main_timeout_vs_immediate");
}

#[test]
fn main_busy_then_race() {
    check("main_busy_then_race");
}

#[test]
fn main_timer_then_busy() {
    check("main_timer_then_busy");
}

#[test]
fn timer_timeout_vs_immediate() {
    check("timer_timeout_vs_immediate");
}

#[test]
fn async_classic() {
    check("async_classic");
}

#[test]
fn await_vs_then_chain() {
    check("await_vs_then_chain");
}

#[test]
fn tick_microtask_nesting() {
    check("tick_microtask_nesting");
}

#[test]
fn async_with_timers() {
    check("async_with_timers");
}

#[test]
fn interval_cleared() {
    check("interval_cleared");
}

/// Fails if an interval is re-armed from a clock read after its callback, or if the
/// poll waits its whole timeout from a loop time that the slow callback left stale:
/// either puts the interval's fourth run after the timeout.
#[test]
fn interval_slow_callback() {
    check("interval_slow_callback");
}

#[test]
fn close_after_check() {
    check("close_after_check");
}

#[test]
fn async_return_then() {
    check("async_return_then");
}

#[test]
fn async_returns_promise() {
    check("async_returns_promise");
}

#[test]
fn async_quiz() {
    check("async_quiz");
}

#[test]
fn timers_by_deadline() {
    check("timers_by_deadline");
}

#[test]
fn every_script_has_a_scenario_and_back() {
    let scripts: BTreeSet<String> = fs::read_dir(scripts_dir())
        .expect("tests/node exists")
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().to_string();
            name.strip_suffix(".js").map(str::to_string)
        })
        .collect();
    let ours: BTreeSet<String> = scenarios().iter().map(|s| s.name.to_string()).collect();
    let listed: BTreeSet<String> = LISTED.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        scripts, ours,
        "tests/node/*.js and oneloop_node::hooks::scenarios()"
    );
    assert_eq!(scripts, listed, "tests/node/*.js and LISTED");
    assert!(
        scripts.len() >= 12,
        "at least 12 scenarios, found {}",
        scripts.len()
    );
}
