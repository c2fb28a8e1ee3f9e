//! The Node truth suite: every scenario in `tests/node/<name>.js` runs on real Node and
//! on oneloop's Node-style loop (`oneloop_node::hooks::scenarios`), and what they print must
//! be the same lines in the same order. Only orders are compared, never times.
//!
//! Each oneloop scenario runs twice: on the virtual clock and on the real one. Where
//! Node's order depends on timing (`NodeOrder::Either`), Node may print any of the
//! listed orders, the virtual clock must give the first, and the real clock any. Where
//! the order rests on a margin of time (`NodeOrder::Paced`), the virtual clock must
//! give the paced order; Node and the real clock may each lose the margin to a stall
//! of the machine, so each gets a few runs, and one of them must keep pace.
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

use oneloop_node::hooks::{NodeOrder, kept_pace, run_scenario, scenario, scenarios};
use oneloop_node::{
    Clock, Promise, RealClock, VirtualClock, console_log, next_tick, set_immediate,
};
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
///
/// Where Node's order is fixed or any of a few, Node's run and oneloop's overlap:
/// Node's process is started first (on a thread that waits for it), and oneloop's runs
/// go on here meanwhile. A scenario that waits on real timers then takes the longer of
/// the two runs, not their sum. Each side still runs alone in its own loop, and what it
/// prints does not depend on the other. A paced scenario's two sides run one after the
/// other, as its order rests on a margin of time.
fn check(name: &str) {
    let scenario = scenario(name).unwrap_or_else(|| panic!("no oneloop scenario {name}"));
    fn ours<C: Clock + Default>(
        name: &str,
        scenario: oneloop_node::hooks::Scenario,
    ) -> Vec<String> {
        // The clock is made on the watchdog's thread, where the loop runs.
        watchdog(ONELOOP_LIMIT, move || run_scenario(&scenario, C::default()))
            .unwrap_or_else(|e| panic!("{name} failed on oneloop: {e}"))
    }
    let node = || run_node(name).unwrap_or_else(|problem| panic!("{problem}"));
    // Node's side, on a thread of its own (its panic is this test's), beside ours.
    fn beside<T: Send, U>(node: impl FnOnce() -> T + Send, ours: impl FnOnce() -> U) -> (T, U) {
        std::thread::scope(|scope| {
            let node = scope.spawn(node);
            let ours = ours();
            let node = node
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (node, ours)
        })
    }
    let both_clocks = || {
        (
            ours::<VirtualClock>(name, *scenario),
            ours::<RealClock>(name, *scenario),
        )
    };
    match scenario.node {
        NodeOrder::Fixed => {
            let (node, (on_virtual, on_real)) = beside(node, both_clocks);
            for (clock, ours) in [("virtual", &on_virtual), ("real", &on_real)] {
                if let Err(diff) = external::side_by_side("node", &node, ours) {
                    panic!("{name}: oneloop on the {clock} clock and node disagree; {diff}");
                }
            }
        }
        NodeOrder::Either(orders) => {
            let (node, (on_virtual, on_real)) = beside(node, both_clocks);
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
        NodeOrder::Paced { order, stalled } => {
            // One after the other: these orders rest on a margin that a busy callback
            // of the other side, running at the same time, could take away.
            kept_pace(&format!("{name}: node"), order, stalled, node);
            let on_virtual = ours::<VirtualClock>(name, *scenario);
            assert_eq!(on_virtual, order, "{name}: oneloop's virtual clock order");
            kept_pace(
                &format!("{name}: oneloop (real clock)"),
                order,
                stalled,
                || ours::<RealClock>(name, *scenario),
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
    "await_promise_vs_adopt",
    "timers_by_deadline",
    "late_loop_runs_lists",
    "interval_behind_its_list",
    "unref_timer",
    "unref_interval",
    "interval_cleared_by_its_tick",
    "refresh_due_timer",
    "refresh_timer",
    "delays_clamped",
    "timers_phase_reads_clock_once",
    "same_deadline_lists",
    "clear_due_timer",
    "refresh_in_own_interval",
    "close_order",
    "close_microtasks",
    "tick_in_microtask_in_immediate",
    "interval_zero_clamped",
    "interval_cleared_by_list_mate",
    "ref_from_callback",
    "timer_set_in_check",
    "every_phase_from_io",
    "refresh_keeps_unref",
    "interval_unrefs_itself",
    "refresh_cleared_timer",
    "timer_joins_its_own_list",
    "refresh_interval_from_timer",
    "immediate_lets_io_in",
    "close_from_close",
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

/// Awaiting a promise already fulfilled costs one microtask, as a then link does;
/// resolving a new promise with it adopts it, two microtasks more.
#[test]
fn await_promise_vs_adopt() {
    check("await_promise_vs_adopt");
}

#[test]
fn async_quiz() {
    check("async_quiz");
}

#[test]
fn timers_by_deadline() {
    check("timers_by_deadline");
}

/// Fails if the timers phase runs every overdue timer strictly by deadline: the 12 ms
/// timer would then come between the two 10 ms ones.
#[test]
fn late_loop_runs_lists() {
    check("late_loop_runs_lists");
}

/// Fails if the timers phase runs a list's timers by deadline rather than from its
/// front: the interval's second run (due 5 ms before the timer) would come first.
#[test]
fn interval_behind_its_list() {
    check("interval_behind_its_list");
}

/// Fails if an unref'd timer keeps the loop alive (the last one would run), or if
/// `unref_timer` stops it from running while another timer keeps the loop alive.
#[test]
fn unref_timer() {
    check("unref_timer");
}

/// An unref'd interval runs at 40 and 80 ms while a 100 ms timer keeps the loop alive,
/// and the loop ends once that timer has run, though the interval is still armed.
#[test]
fn unref_interval() {
    check("unref_interval");
}

/// An interval is re-armed right after its callback, before the drain, so a nextTick
/// that run queued can clear it: it never runs again, and the loop goes on.
#[test]
fn interval_cleared_by_its_tick() {
    check("interval_cleared_by_its_tick");
}

/// A timer due in this timers phase, refreshed by an earlier timer of its list, leaves
/// the phase: it runs 20 ms after the refresh, behind a 30 ms timer.
#[test]
fn refresh_due_timer() {
    check("refresh_due_timer");
}

/// Fails if `refresh_timer` leaves the timer due at its first deadline (it would run
/// before the 250 ms timer), or re-arms it from a time other than now.
#[test]
fn refresh_timer() {
    check("refresh_timer");
}

/// The preload check's two programs on oneloop: `setup` for `tests/node/preload/setup.js`
/// and `main` for `main.js`.
fn preload_setup() {
    next_tick(|| console_log("setup tick"));
    Promise::resolved(()).then(|()| console_log("setup promise"));
    set_immediate(|| console_log("setup immediate"));
    console_log("setup");
}

fn preload_main() {
    next_tick(|| console_log("main tick"));
    Promise::resolved(()).then(|()| console_log("main promise"));
    set_immediate(|| {
        console_log("main immediate");
        next_tick(|| console_log("main immediate tick"));
    });
    console_log("main");
}

/// `oneloop_node::run_with(setup, main)` prints what `node --require ./setup.js main.js`
/// prints: the preload and the main script are one script, and their nextTicks and
/// microtasks are drained only after both. `run(main)` prints what `node main.js` does.
#[test]
fn run_with_a_preload_is_node_require_and_run_is_node() {
    node_version().unwrap_or_else(|problem| panic!("{problem}"));
    let dir = scripts_dir().join("preload");
    let main = dir.join("main.js");
    let node_preloaded = NODE
        .run(
            &["--require", "./setup.js"],
            &main,
            &["NODE_OPTIONS"],
            NODE_LIMIT,
        )
        .unwrap_or_else(|problem| panic!("{problem}"));
    let node_alone = NODE
        .run(&[], &main, &["NODE_OPTIONS"], NODE_LIMIT)
        .unwrap_or_else(|problem| panic!("{problem}"));
    let (preloaded, alone) = watchdog(ONELOOP_LIMIT, || {
        let preloaded = oneloop_node::run_with(preload_setup, preload_main)?.output;
        let alone = oneloop_node::run(preload_main)?.output;
        Ok::<_, oneloop_node::NodeError>((preloaded, alone))
    })
    .unwrap_or_else(|e| panic!("oneloop failed: {e}"));
    if let Err(diff) = external::side_by_side("node --require", &node_preloaded, &preloaded) {
        panic!("run_with and node --require disagree; {diff}");
    }
    if let Err(diff) = external::side_by_side("node", &node_alone, &alone) {
        panic!("run and node disagree; {diff}");
    }
}

/// Fails if a delay of 0 ms or of 2^31 ms is kept as it is rather than read as 1 ms.
#[test]
fn delays_clamped() {
    check("delays_clamped");
}

/// Fails if the timers phase reads the clock again between two timers: the 60 ms timer
/// would then run in the same phase as the busy one, before the immediate.
#[test]
fn timers_phase_reads_clock_once() {
    check("timers_phase_reads_clock_once");
}

/// Fails if a list keeps its id when its expiry moves: T2's list would then come
/// before U's on the virtual clock, where the two deadlines are equal.
#[test]
fn same_deadline_lists() {
    check("same_deadline_lists");
}

#[test]
fn clear_due_timer() {
    check("clear_due_timer");
}

/// Fails if `refresh_timer` re-arms an interval from inside its own callback: the
/// second run would then come 50 ms late, after the 240 ms timer.
#[test]
fn refresh_in_own_interval() {
    check("refresh_in_own_interval");
}

/// Fails if the close phase runs its callbacks in the order of the closes: libuv's
/// closing list runs the last one closed first.
#[test]
fn close_order() {
    check("close_order");
}

/// Fails if the close phase runs its callbacks back to back: Node drains the nextTick
/// queue, then the promise queue, after each close callback.
#[test]
fn close_microtasks() {
    check("close_microtasks");
}

#[test]
fn tick_in_microtask_in_immediate() {
    check("tick_in_microtask_in_immediate");
}

#[test]
fn interval_zero_clamped() {
    check("interval_zero_clamped");
}

#[test]
fn interval_cleared_by_list_mate() {
    check("interval_cleared_by_list_mate");
}

#[test]
fn ref_from_callback() {
    check("ref_from_callback");
}

#[test]
fn timer_set_in_check() {
    check("timer_set_in_check");
}

#[test]
fn every_phase_from_io() {
    check("every_phase_from_io");
}

#[test]
fn refresh_keeps_unref() {
    check("refresh_keeps_unref");
}

#[test]
fn interval_unrefs_itself() {
    check("interval_unrefs_itself");
}

#[test]
fn refresh_cleared_timer() {
    check("refresh_cleared_timer");
}

#[test]
fn timer_joins_its_own_list() {
    check("timer_joins_its_own_list");
}

#[test]
fn refresh_interval_from_timer() {
    check("refresh_interval_from_timer");
}

#[test]
fn immediate_lets_io_in() {
    check("immediate_lets_io_in");
}

#[test]
fn close_from_close() {
    check("close_from_close");
}

/// A throw that nothing catches ends Node: `tests/node/throw/tick_throws.js` throws
/// from a nextTick, and Node prints the error and exits with code 1, running neither
/// the next tick nor the immediate. A panic in a callback ends oneloop's run the same
/// way: it unwinds out of `run`, and nothing queued after it runs.
#[test]
fn an_uncaught_throw_ends_node_and_a_panic_ends_the_run() {
    node_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = scripts_dir().join("throw/tick_throws.js");
    let output = std::process::Command::new(NODE.program)
        .arg(&script)
        .env_remove("NODE_OPTIONS")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("node could not be started: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "node's exit; stderr:\n{stderr}"
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["main"],
        "node's stdout"
    );
    assert!(stderr.contains("Error: boom"), "node's stderr:\n{stderr}");

    let (logged, panic) = watchdog(ONELOOP_LIMIT, || {
        let logged = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = |line: &'static str| {
            let logged = std::rc::Rc::clone(&logged);
            move || logged.borrow_mut().push(line)
        };
        let (second, immediate, main) = (log("second tick"), log("immediate"), log("main"));
        let mut node = oneloop_node::NodeLoop::with_virtual_clock()?;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            node.run(|| {
                next_tick(|| panic!("boom"));
                next_tick(second);
                set_immediate(immediate);
                main();
            })
        }));
        let panic = match run {
            Ok(report) => format!("no panic: the run returned {report:?}"),
            Err(payload) => payload.downcast_ref::<&str>().unwrap_or(&"?").to_string(),
        };
        let lines = logged.borrow().clone();
        Ok::<_, oneloop_node::NodeError>((lines, panic))
    })
    .unwrap_or_else(|e| panic!("oneloop failed: {e}"));
    assert_eq!(panic, "boom", "the run's panic");
    assert_eq!(logged, ["main"], "what ran on oneloop");
}

/// What an `await` and a `return` cost on Node, counted against a then chain queued
/// beside them (`tests/node/hops/await_costs.js`): one microtask to await a plain value
/// or a native promise, two to await a thenable that settles in its `then`, three
/// before a `then` on an async function that returned a promise. The chapter's note on
/// await costs rests on these; oneloop's side of the promise cases is in the scenarios
/// `await_vs_then_chain` and `async_returns_promise`.
#[test]
fn nodes_await_costs_are_the_chapters() {
    node_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = scripts_dir().join("hops/await_costs.js");
    let lines = NODE
        .run(&[], &script, &["NODE_OPTIONS"], NODE_LIMIT)
        .unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        lines,
        [
            "await a plain value",
            "await a native promise",
            "then on an async function that returns a value",
            "link 1",
            "await a thenable",
            "link 2",
            "then on an async function that returns a promise",
            "link 3",
            "link 4",
        ],
        "Node's await costs are no longer what chapter 8 says"
    );
}

/// Node's own source says why the drain runs between every two callbacks: each of its
/// timers module's three loops (immediates; timer lists; the timers of one list) calls
/// `runNextTicks()` before every callback but the first. `tests/node/source/
/// timer_loops.js` reads the functions back from the running Node.
#[test]
fn nodes_timer_loops_drain_the_queues_before_every_callback_but_the_first() {
    node_version().unwrap_or_else(|problem| panic!("{problem}"));
    let script = scripts_dir().join("source/timer_loops.js");
    let lines = NODE
        .run(
            &["--expose-internals"],
            &script,
            &["NODE_OPTIONS"],
            NODE_LIMIT,
        )
        .unwrap_or_else(|problem| panic!("{problem}"));
    assert_eq!(
        lines,
        [
            "processImmediate calls=1 after-the-first=1",
            "processTimers calls=1 after-the-first=1",
            "listOnTimeout calls=1 after-the-first=1",
        ],
        "Node's lib/internal/timers.js no longer drains between callbacks as chapter 8 says"
    );
}

/// What keeps the loop going, on Node and on oneloop's loop (`tests/node/alive/`):
/// ten thousand nextTicks, each queued by the last, all run before an immediate queued
/// beside them; and a promise nothing will settle, or an unref'd interval, keeps the
/// loop alive on neither, so the run ends after the main script with zero iterations.
#[test]
fn what_keeps_the_loop_alive_on_node_keeps_it_on_oneloop() {
    node_version().unwrap_or_else(|problem| panic!("{problem}"));
    let dir = scripts_dir().join("alive");
    let node_ticks = NODE
        .run(
            &[],
            &dir.join("tick_starves.js"),
            &["NODE_OPTIONS"],
            NODE_LIMIT,
        )
        .unwrap_or_else(|problem| panic!("{problem}"));
    let node_ends = NODE
        .run(
            &[],
            &dir.join("nothing_keeps_it_alive.js"),
            &["NODE_OPTIONS"],
            NODE_LIMIT,
        )
        .unwrap_or_else(|problem| panic!("{problem}"));
    let (ticks, ends) = watchdog(ONELOOP_LIMIT, || {
        fn again(left: u32) {
            if left == 0 {
                console_log("ticks done");
            } else {
                next_tick(move || again(left - 1));
            }
        }
        let ticks = oneloop_node::NodeLoop::with_virtual_clock()?.run(|| {
            set_immediate(|| console_log("immediate"));
            again(10_000);
        })?;
        let ends = oneloop_node::NodeLoop::with_virtual_clock()?.run(|| {
            let (never, _resolver) = Promise::<()>::pending();
            never.then(|()| console_log("never settled"));
            oneloop_node::unref_timer(oneloop_node::set_interval(|| console_log("interval"), 1));
            console_log("main");
        })?;
        Ok::<_, oneloop_node::NodeError>((ticks, ends))
    })
    .unwrap_or_else(|e| panic!("oneloop failed: {e}"));
    if let Err(diff) = external::side_by_side("node", &node_ticks, &ticks.output) {
        panic!("tick_starves: oneloop and node disagree; {diff}");
    }
    if let Err(diff) = external::side_by_side("node", &node_ends, &ends.output) {
        panic!("nothing_keeps_it_alive: oneloop and node disagree; {diff}");
    }
    assert_eq!(
        ends.iterations, 0,
        "nothing was alive after the main script"
    );
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
