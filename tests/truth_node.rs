//! The Node truth suite: every scenario in `tests/node/<name>.js` runs on real Node and
//! on oneloop's Node-style loop (`oneloop_node::scenarios`), and what they print must
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

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use oneloop_node::{Clock, NodeOrder, run_scenario, scenario, scenarios};
use oneloop_testkit::watchdog_default;

/// How long one Node script may run before it is killed.
const NODE_LIMIT: Duration = Duration::from_secs(10);

const NO_NODE: &str = "node is required: the Node truth suite runs every scenario on \
real Node.js (v20, as in CI) and compares. Install it and put `node` on the PATH: on \
Debian or Ubuntu, `apt-get install nodejs`; elsewhere, the installer from nodejs.org.";

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node")
}

/// `node --version`, asked once per test run and written to stderr (past the harness's
/// capture), so every run shows which Node it checked against.
fn node_version() -> Result<String, String> {
    static VERSION: OnceLock<Result<String, String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let version = ask_version();
            let mut stderr = io::stderr();
            // A failed write to stderr leaves nothing to report it to.
            let _ = match &version {
                Ok(v) if v.starts_with("v20.") => {
                    writeln!(stderr, "truth_node: comparing oneloop with node {v}")
                }
                Ok(v) => writeln!(
                    stderr,
                    "truth_node: comparing oneloop with node {v}; the scenarios were \
                     written against Node 20, as CI runs it"
                ),
                Err(problem) => writeln!(stderr, "truth_node: {problem}"),
            };
            version
        })
        .clone()
}

fn ask_version() -> Result<String, String> {
    let output = match Command::new("node").arg("--version").output() {
        Ok(output) => output,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!("node was not found. {NO_NODE}"));
        }
        Err(e) => return Err(format!("node could not be started ({e}). {NO_NODE}")),
    };
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || !version.starts_with('v') {
        return Err(format!("`node --version` said {version:?}. {NO_NODE}"));
    }
    Ok(version)
}

/// Reads a child's pipe to the end on its own thread, so a full pipe never stalls it.
fn read_all(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        // A read error leaves the text short, and the comparison then says so.
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// Runs `tests/node/<name>.js` and returns the lines it printed.
fn run_node(name: &str) -> Result<Vec<String>, String> {
    node_version()?;
    let script = scripts_dir().join(format!("{name}.js"));
    if !script.is_file() {
        return Err(format!("{} does not exist", script.display()));
    }
    let mut child = Command::new("node")
        .arg(&script)
        .current_dir(scripts_dir())
        // No NODE_OPTIONS from the environment may change the run.
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting node failed ({e}). {NO_NODE}"))?;
    let stdout = read_all(child.stdout.take().expect("stdout is piped"));
    let stderr = read_all(child.stderr.take().expect("stderr is piped"));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < NODE_LIMIT => {
                // Supervising a process, not ordering events: poll its exit.
                thread::sleep(Duration::from_millis(5));
            }
            Ok(None) => {
                // Best effort: the test fails either way.
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{name}.js did not finish within {NODE_LIMIT:?}"));
            }
            Err(e) => return Err(format!("waiting for {name}.js failed: {e}")),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        return Err(format!(
            "{name}.js failed ({status}); its stderr:\n{stderr}"
        ));
    }
    Ok(stdout.lines().map(str::to_string).collect())
}

/// Runs scenario `name` on Node and on both of oneloop's clocks, and compares.
fn check(name: &str) {
    let node = run_node(name).unwrap_or_else(|problem| panic!("{problem}"));
    let scenario = scenario(name).unwrap_or_else(|| panic!("no oneloop scenario {name}"));
    let ours = |clock: Clock| {
        let scenario = *scenario;
        watchdog_default(move || run_scenario(&scenario, clock))
            .unwrap_or_else(|e| panic!("{name} failed on oneloop: {e}"))
    };
    let on_virtual = ours(Clock::virtual_clock());
    let on_real = ours(Clock::real());
    match scenario.node {
        NodeOrder::Fixed => {
            assert_eq!(on_virtual, node, "{name}: oneloop (virtual clock) vs node");
            assert_eq!(on_real, node, "{name}: oneloop (real clock) vs node");
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
    "timer_timeout_vs_immediate",
    "async_classic",
    "await_vs_then_chain",
    "tick_microtask_nesting",
    "async_with_timers",
    "interval_cleared",
    "close_after_check",
    "async_return_then",
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

#[test]
fn close_after_check() {
    check("close_after_check");
}

#[test]
fn async_return_then() {
    check("async_return_then");
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
        "tests/node/*.js and oneloop_node::scenarios()"
    );
    assert_eq!(scripts, listed, "tests/node/*.js and LISTED");
    assert!(
        scripts.len() >= 12,
        "at least 12 scenarios, found {}",
        scripts.len()
    );
}
