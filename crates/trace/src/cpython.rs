//! CPython's turns beside oneloop's: the stepper's third column.
//!
//! Some of the book's scenarios are also truth scenarios: the same program exists as
//! `tests/asyncio/<script>.py`, and the truth suite (`tests/truth_asyncio.rs`) checks
//! that real CPython 3.11 runs it in the same turns as oneloop, apart from the
//! differences it declares on purpose. For those, [`cpython_turns`] runs the script on
//! `python3` when the recording is made and keeps CPython's handles turn by turn.
//!
//! Each turn of CPython's is matched to a turn of the recording:
//!
//! - a handle that a declared difference removes from CPython's trace is kept and
//!   marked with that difference; a turn left with nothing else has no oneloop turn;
//! - the other turns are matched in order, and each must run the same handles, with
//!   oneloop's labels named as the suite names them ([`CPYTHON_NAMES`], and `task`
//!   for an unnamed task); if one does not, recording fails, so a column the book
//!   shows never disagrees with the run beside it;
//! - turns after the recording's last one must only run `_run_until_complete_cb`:
//!   `run_until_complete` stops the loop with a callback one turn after main ends,
//!   and the stepper's recording ends with main.
//!
//! A test of the truth suite checks that every pair here declares exactly the
//! differences the suite declares for its script.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Trace;

/// One difference the truth suite declares, as far as the stepper marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// The difference's name, as the truth suite names it.
    pub name: &'static str,
    /// The CPython handle it removes from CPython's trace.
    pub removes: &'static str,
    /// One line: why oneloop has no such handle.
    pub about: &'static str,
}

/// A scenario of the book paired with the truth scenario that runs its program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// The book's scenario (the recording's name).
    pub demo: &'static str,
    /// The truth scenario: `tests/asyncio/<script>.py`.
    pub script: &'static str,
    /// The section of the script's trace that is this program, if it runs several.
    pub section: Option<&'static str>,
    /// The differences the truth suite declares for the script.
    pub differs: &'static [Declared],
    /// Task names that differ between the two programs: `(oneloop, CPython)`.
    pub names: &'static [(&'static str, &'static str)],
}

/// oneloop labels whose handle plays the part of an asyncio function of another name
/// (the truth suite's table): `(oneloop, CPython)`.
pub const CPYTHON_NAMES: [(&str, &str); 2] = [
    ("sleep", "_set_result_unless_cancelled"),
    ("run_in_executor result", "_set_state"),
];

const GATHER_HOP: Declared = Declared {
    name: "gather's done-callback hop",
    removes: "_done_callback",
    about: "asyncio's gather completes its outer future from a done callback on each \
            child; oneloop's gather wakes main from the children's join handles",
};

const PAIRS: &[Pair] = &[
    Pair {
        demo: "gather_three_children",
        script: "gather_three_children",
        section: None,
        differs: &[GATHER_HOP],
        names: &[],
    },
    Pair {
        demo: "taking_turns",
        script: "take_turns",
        section: Some("yielding"),
        differs: &[],
        names: &[("a", "A"), ("b", "B")],
    },
    Pair {
        demo: "taskgroup_one_fails",
        script: "taskgroup_one_fails",
        section: None,
        differs: &[],
        names: &[],
    },
    Pair {
        demo: "cancel_sleeping_task",
        script: "cancel_sleeping_task",
        section: None,
        differs: &[],
        names: &[],
    },
];

/// Every pair of a book scenario and a truth scenario.
pub fn pairs() -> &'static [Pair] {
    PAIRS
}

/// The pair of the scenario called `demo`, if it has one.
pub fn pair(demo: &str) -> Option<&'static Pair> {
    PAIRS.iter().find(|pair| pair.demo == demo)
}

/// One handle CPython ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpythonHandle {
    /// Its name, as the truth suite's helper names it.
    pub name: String,
    /// The declared difference that removes it, if one does.
    pub removed_by: Option<&'static str>,
}

/// One turn of CPython's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpythonTurn {
    /// CPython's turn number.
    pub number: u64,
    /// The recording's turn that runs the same handles (from 1); `None` if none does.
    pub oneloop_turn: Option<usize>,
    /// Why no oneloop turn matches, when none does.
    pub why: Option<String>,
    /// What it ran, in order.
    pub handles: Vec<CpythonHandle>,
}

/// What [`cpython_turns`] found: the script and CPython's turns, matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpythonRun {
    /// The pair it was made for.
    pub pair: &'static Pair,
    /// CPython's turns, in order.
    pub turns: Vec<CpythonTurn>,
}

/// The folder of the truth scenarios' scripts.
fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/asyncio")
}

/// Runs the pair's script on `python3` (3.11, as the truth suite requires) and returns
/// the trace lines of its section.
fn run_script(pair: &Pair) -> Result<Vec<String>, String> {
    let python = |args: &[&std::ffi::OsStr]| {
        Command::new("python3")
            .args(args)
            .output()
            .map_err(|error| {
                format!(
                    "python3 is needed to record CPython's turns beside `{}`: {error}",
                    pair.demo
                )
            })
    };
    let version = python(&["--version".as_ref()])?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    if !version.starts_with("Python 3.11.") {
        return Err(format!(
            "CPython's turns are recorded on Python 3.11, as the truth suite checks; \
             `python3 --version` says {version:?}"
        ));
    }
    let script = scripts_dir().join(format!("{}.py", pair.script));
    // -B: no bytecode in the repository; -E: no PYTHON* variables; -s: no user site.
    let output = python(&[
        "-B".as_ref(),
        "-E".as_ref(),
        "-s".as_ref(),
        script.as_os_str(),
    ])?;
    if !output.status.success() {
        return Err(format!(
            "{} failed ({}): {}",
            script.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut inside = pair.section.is_none();
    let mut lines = Vec::new();
    for line in text.lines() {
        if let Some(section) = line.strip_prefix("section=") {
            inside = Some(section) == pair.section;
        } else if inside {
            lines.push(line.to_string());
        }
    }
    Ok(lines)
}

/// CPython's handles per turn, in order, from trace lines (`turn=T run=NAME`).
fn turns_of(lines: &[String]) -> Result<Vec<(u64, Vec<String>)>, String> {
    let mut turns: Vec<(u64, Vec<String>)> = Vec::new();
    for line in lines {
        let Some(rest) = line.strip_prefix("turn=") else {
            continue;
        };
        let Some((turn, what)) = rest.split_once(' ') else {
            return Err(format!("not a trace line: {line:?}"));
        };
        let Some(name) = what.strip_prefix("run=") else {
            continue;
        };
        let turn: u64 = turn
            .parse()
            .map_err(|_| format!("a handle outside a turn: {line:?}"))?;
        match turns.last_mut() {
            Some((last, names)) if *last == turn => names.push(name.to_string()),
            _ => turns.push((turn, vec![name.to_string()])),
        }
    }
    Ok(turns)
}

/// A oneloop label as the truth suite names it.
fn suite_name(pair: &Pair, label: &str) -> String {
    let unnamed_task = label
        .strip_prefix("task ")
        .and_then(|id| id.split_once('.'))
        .is_some_and(|(slot, generation)| {
            [slot, generation]
                .iter()
                .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
        });
    if unnamed_task {
        return "task".to_string();
    }
    pair.names
        .iter()
        .chain(CPYTHON_NAMES.iter())
        .find(|(ours, _)| *ours == label)
        .map_or_else(|| label.to_string(), |(_, theirs)| (*theirs).to_string())
}

/// Matches CPython's turns (from trace lines) to the turns of `trace`.
pub fn match_turns(
    pair: &'static Pair,
    lines: &[String],
    trace: &Trace,
) -> Result<CpythonRun, String> {
    let removed_by = |name: &str| {
        pair.differs
            .iter()
            .find(|declared| declared.removes == name)
            .map(|declared| declared.name)
    };
    let mut turns = Vec::new();
    let mut next = 0;
    for (number, names) in turns_of(lines)? {
        let handles: Vec<CpythonHandle> = names
            .iter()
            .map(|name| CpythonHandle {
                name: name.clone(),
                removed_by: removed_by(name),
            })
            .collect();
        let kept: Vec<&str> = handles
            .iter()
            .filter(|handle| handle.removed_by.is_none())
            .map(|handle| handle.name.as_str())
            .collect();
        let (oneloop_turn, why) = if kept.is_empty() {
            let by = handles[0].removed_by.unwrap_or("?");
            (None, Some(format!("no oneloop turn: {by}")))
        } else if next >= trace.turns.len() {
            if kept.iter().any(|name| *name != "_run_until_complete_cb") {
                return Err(format!(
                    "{}: CPython's turn {number} ran {kept:?} after oneloop's last turn",
                    pair.demo
                ));
            }
            (
                None,
                Some(
                    "after the recording: run_until_complete's stop callback; the recording ends when main does"
                        .to_string(),
                ),
            )
        } else {
            let ours: Vec<String> = trace.turns[next]
                .handles
                .iter()
                .map(|span| suite_name(pair, &span.label))
                .collect();
            if ours != kept {
                return Err(format!(
                    "{}: CPython's turn {number} ran {kept:?} (with the declared differences \
                     set aside), oneloop's turn {} ran {ours:?}; {}.py is not this program",
                    pair.demo,
                    next + 1,
                    pair.script
                ));
            }
            next += 1;
            (Some(next), None)
        };
        turns.push(CpythonTurn {
            number,
            oneloop_turn,
            why,
            handles,
        });
    }
    if next != trace.turns.len() {
        return Err(format!(
            "{}: CPython's trace matches {next} of oneloop's {} turns",
            pair.demo,
            trace.turns.len()
        ));
    }
    Ok(CpythonRun { pair, turns })
}

/// Runs the paired script of `demo` on CPython and matches its turns to `trace`;
/// `None` when `demo` has no truth scenario.
pub fn cpython_turns(demo: &str, trace: &Trace) -> Result<Option<CpythonRun>, String> {
    let Some(pair) = pair(demo) else {
        return Ok(None);
    };
    let lines = run_script(pair)?;
    match_turns(pair, &lines, trace).map(Some)
}
