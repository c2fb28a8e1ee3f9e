//! Recordings for the book's browser stepper: every turn of a scenario, with what the
//! loop held before and after it.
//!
//! A [`Trace`] says what ran. The stepper in the book also shows what the loop *held*:
//! the ready queue, the head of the timer heap and the selector's registrations, before
//! and after each turn. Those come from the loop's [`Snapshot`], taken between turns
//! while the scenario is driven one turn at a time. A [`Recording`] is the two together,
//! written as JSON in a schema of its own (the Chrome trace format has no place for a
//! ready queue).
//!
//! Browsers refuse `fetch()` over `file://`, so a recording is published as a small
//! JavaScript file that assigns the JSON to `window.ONELOOP_RECORDINGS[name]`; the
//! page's script reads it from there. `cargo course figures` writes one such file per
//! scenario into `book/src/stepper/data/`.
//!
//! # The schema (`oneloop-recording/1`)
//!
//! Times are whole microseconds on the recording's clock (`clock` says which).
//!
//! ```text
//! {
//!   "schema": "oneloop-recording/1",
//!   "name": "gather_sleeps",            the scenario (and file) name
//!   "title": "...", "about": "...",     the figure's heading and its one-line note
//!   "loop": "asyncio" | "node",         a turn of _run_once, or a phase of Node's loop
//!   "clock": "virtual" | "real",        real: one sample run, times differ every run
//!   "durations": true,                  false: only the order is meaningful
//!   "lanes": [                          callbacks first, then in order of first run
//!     { "key": "task 1.0", "name": "sleep 0.3 s", "task": "task 1.0" | null,
//!       "colour": "#E69F00" }           the colour the SVG figure draws the lane in
//!   ],
//!   "figure": null | {                  the SVG beside it, when it draws these turns
//!     "file": "figures/gather_sleeps.svg", "width": 750, "height": 300,
//!     "columns": [[116.0, 150.2], ..] },  each turn's left and right edge, SVG units
//!   "cpython": null | {                 CPython 3.11's run of the same program, when a
//!     "script": "tests/asyncio/x.py",   truth scenario has it (see crate::cpython)
//!     "section": null | "yielding", "python": "3.11",
//!     "differences": [ { "name": "...", "removes": "_done_callback", "about": "..." } ],
//!     "turns": [ { "number": 4,         CPython's turn number
//!       "oneloop_turn": 3 | null,       the turn below that runs the same handles
//!       "why": null | "...",            why none does
//!       "handles": [ { "name": "task", "removed_by": null | "gather's done-callback hop" } ]
//!     } ] },
//!   "turns": [
//!     { "number": 1, "title": "1",      the turn's number; a Node phase's name
//!       "group": null | "iteration 1",  Node: the iteration the phase belongs to
//!       "start_us", "park_end_us", "end_us",     the clock at the turn's three moments
//!       "timeout_us": 0 | null,         the park's timeout (null: wait for an event)
//!       "parked_us": 0,                 how long the park slept
//!       "timers_moved": 0, "io_events": 0,
//!       "handles": [                    the ntodo handles, in the order they ran
//!         { "label": "main", "kind": "Task", "lane": 1, "task": "task 0.0" | null,
//!           "start_us": 0, "end_us": 0 } ],
//!       "before": { "ready": [..], "timers": [..],
//!                   "registrations": [ { "layer": "io", "lines": [..] } ] },
//!       "after":  { the same, once the turn is over } | null
//!     } ]
//! }
//! ```
//!
//! `before` and `after` are `null` for Node recordings: stage 8's loop runs to the end
//! in one call and cannot be stopped between phases, so its phases are rebuilt from
//! the callbacks' log (see [`node`](crate::node)).

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oneloop_core::hooks::Snapshot;

use crate::cpython::{CpythonRun, cpython_turns};
use crate::figures::figure_with_options;
use crate::layout::layout;
use crate::session::MAX_TURNS;
use crate::svg::{lane_colour, svg_size};
use crate::{Kind, Lane, Scenario, TimeBase, Trace, json_string, scenarios};

/// The schema's name and version, written in every recording.
pub const RECORDING_SCHEMA: &str = "oneloop-recording/1";

/// The global a recording's `.js` file assigns into.
pub const RECORDINGS_GLOBAL: &str = "ONELOOP_RECORDINGS";

/// What the loop held at one moment between turns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Held {
    /// Labels of the queued handles, oldest first.
    pub ready: Vec<String>,
    /// The head of the timer heap, earliest first (empty with no timer layer).
    pub timers: Vec<String>,
    /// Every other layer's registrations: `(layer, lines)`, outermost first.
    pub registrations: Vec<(String, Vec<String>)>,
}

impl From<Snapshot> for Held {
    fn from(snapshot: Snapshot) -> Self {
        let mut held = Held {
            ready: snapshot.ready,
            ..Held::default()
        };
        for layer in snapshot.layers {
            if layer.name == "timers" {
                held.timers = layer.lines;
            } else {
                held.registrations
                    .push((layer.name.to_string(), layer.lines));
            }
        }
        held
    }
}

/// One scenario's run, turn by turn, with what the loop held around each turn.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The scenario it records.
    pub scenario: &'static Scenario,
    /// What ran (lanes named as the figure names them).
    pub trace: Trace,
    /// Per turn: what the loop held before and after it (empty for Node runs).
    pub held: Vec<(Held, Held)>,
    /// Per turn: the iteration a Node phase belongs to (empty for asyncio runs).
    pub groups: Vec<String>,
    /// The figure drawn beside it, if it draws these same turns.
    pub figure: Option<FigureColumns>,
    /// CPython's turns of the same program, when a truth scenario runs it.
    pub cpython: Option<CpythonRun>,
}

/// Where the turns are drawn in the scenario's SVG figure, in the SVG's own units.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureColumns {
    /// The figure's file, from the book's root: `figures/<name>.svg`.
    pub file: String,
    /// The SVG's width and height.
    pub size: (f64, f64),
    /// Each turn's column: its left and right edge.
    pub columns: Vec<(f64, f64)>,
}

/// The columns of `scenario`'s figure, when the figure draws the same turns (the same
/// handles in each) as `trace`; a figure of another run on a real clock does not.
fn figure_columns(scenario: &Scenario, trace: &Trace) -> Result<Option<FigureColumns>, String> {
    if !scenario.reproducible {
        return Ok(None);
    }
    let (figure, options) = figure_with_options(scenario)?;
    let labels = |trace: &Trace| -> Vec<Vec<String>> {
        trace
            .turns
            .iter()
            .map(|turn| turn.handles.iter().map(|span| span.label.clone()).collect())
            .collect()
    };
    if labels(&figure.trace) != labels(trace) {
        return Ok(None);
    }
    let columns = layout(&figure.trace.turns, &options)
        .iter()
        .map(|placed| (placed.left, placed.right))
        .collect();
    Ok(Some(FigureColumns {
        file: format!("figures/{}.svg", scenario.name),
        size: svg_size(&figure.trace, &options),
        columns,
    }))
}

// ANCHOR: record
/// Runs `scenario` one turn at a time, snapshotting the loop around every turn.
pub fn record(scenario: &'static Scenario) -> Result<Recording, String> {
    let fail = |error: String| format!("{}: {error}", scenario.name);
    match scenario.kind {
        Kind::Loop(begin) => {
            let mut session = begin().map_err(|e| fail(e.to_string()))?;
            let mut held = Vec::new();
            for _ in 0..MAX_TURNS {
                if session.finished() {
                    break;
                }
                let before = Held::from(session.snapshot());
                session.run_once().map_err(|e| fail(e.to_string()))?;
                held.push((before, Held::from(session.snapshot())));
            }
            if !session.finished() {
                return Err(fail(format!("main was not done after {MAX_TURNS} turns")));
            }
            let mut trace = session.recorder().trace();
            scenario.name_lanes(&mut trace);
            let figure = figure_columns(scenario, &trace)?;
            let cpython = cpython_turns(scenario.name, &trace)?;
            Ok(Recording {
                scenario,
                trace,
                held,
                groups: Vec::new(),
                figure,
                cpython,
            })
        }
        Kind::Node(run) => {
            let run = run().map_err(fail)?;
            let groups = (0..run.trace.turns.len())
                .map(|index| {
                    run.groups
                        .iter()
                        .find(|(first, last, _)| (*first..=*last).contains(&index))
                        .map_or_else(String::new, |(_, _, name)| name.clone())
                })
                .collect();
            let figure = figure_columns(scenario, &run.trace)?;
            Ok(Recording {
                scenario,
                trace: run.trace,
                held: Vec::new(),
                groups,
                figure,
                cpython: None,
            })
        }
    }
}
// ANCHOR_END: record

/// Every scenario recorded, in the book's order.
pub fn recordings() -> Result<Vec<Recording>, String> {
    scenarios().iter().map(record).collect()
}

fn us(duration: Duration) -> u128 {
    duration.as_micros()
}

fn strings(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| json_string(item)).collect();
    format!("[{}]", items.join(","))
}

fn held_json(held: &Held) -> String {
    let registrations: Vec<String> = held
        .registrations
        .iter()
        .map(|(layer, lines)| {
            format!(
                r#"{{"layer":{},"lines":{}}}"#,
                json_string(layer),
                strings(lines)
            )
        })
        .collect();
    format!(
        r#"{{"ready":{},"timers":{},"registrations":[{}]}}"#,
        strings(&held.ready),
        strings(&held.timers),
        registrations.join(",")
    )
}

fn cpython_json(run: &CpythonRun) -> String {
    let differences: Vec<String> = run
        .pair
        .differs
        .iter()
        .map(|declared| {
            format!(
                r#"{{"name":{},"removes":{},"about":{}}}"#,
                json_string(declared.name),
                json_string(declared.removes),
                json_string(declared.about)
            )
        })
        .collect();
    let turns: Vec<String> = run
        .turns
        .iter()
        .map(|turn| {
            let handles: Vec<String> = turn
                .handles
                .iter()
                .map(|handle| {
                    format!(
                        r#"{{"name":{},"removed_by":{}}}"#,
                        json_string(&handle.name),
                        handle
                            .removed_by
                            .map_or_else(|| "null".to_string(), json_string)
                    )
                })
                .collect();
            format!(
                r#"{{"number":{},"oneloop_turn":{},"why":{},"handles":[{}]}}"#,
                turn.number,
                turn.oneloop_turn
                    .map_or_else(|| "null".to_string(), |n| n.to_string()),
                turn.why
                    .as_deref()
                    .map_or_else(|| "null".to_string(), json_string),
                handles.join(",")
            )
        })
        .collect();
    format!(
        r#"{{"script":{},"section":{},"python":"3.11","differences":[{}],"turns":[{}]}}"#,
        json_string(&format!("tests/asyncio/{}.py", run.pair.script)),
        run.pair
            .section
            .map_or_else(|| "null".to_string(), json_string),
        differences.join(","),
        turns.join(",")
    )
}

impl Recording {
    /// The recording as JSON in the `oneloop-recording/1` schema, one turn per line.
    pub fn json(&self) -> String {
        let scenario = self.scenario;
        let lanes = self.trace.lanes();
        let mut out = String::new();
        let clock = match self.trace.time_base {
            TimeBase::Virtual => "virtual",
            TimeBase::Real => "real",
        };
        let kind = match scenario.kind {
            Kind::Loop(_) => "asyncio",
            Kind::Node(_) => "node",
        };
        let _ = write!(
            out,
            "{{\"schema\":{},\"name\":{},\"title\":{},\"about\":{},\"loop\":\"{kind}\",\"clock\":\"{clock}\",\"durations\":{},\n\"lanes\":[",
            json_string(RECORDING_SCHEMA),
            json_string(scenario.name),
            json_string(scenario.title),
            json_string(scenario.about),
            scenario.durations
        );
        let lane_items: Vec<String> = lanes
            .iter()
            .map(|info| {
                let (key, task) = match &info.lane {
                    Lane::Callbacks => ("callbacks".to_string(), "null".to_string()),
                    Lane::Task(id) => (id.to_string(), json_string(&id.to_string())),
                    Lane::Named(name) => (name.clone(), "null".to_string()),
                };
                format!(
                    r#"{{"key":{},"name":{},"task":{task},"colour":"{}"}}"#,
                    json_string(&key),
                    json_string(&info.name),
                    lane_colour(&lanes, &info.lane)
                )
            })
            .collect();
        out.push_str(&lane_items.join(","));
        out.push_str("],\n\"figure\":");
        match &self.figure {
            None => out.push_str("null"),
            Some(figure) => {
                let columns: Vec<String> = figure
                    .columns
                    .iter()
                    .map(|(left, right)| format!("[{left:.1},{right:.1}]"))
                    .collect();
                let _ = write!(
                    out,
                    r#"{{"file":{},"width":{},"height":{},"columns":[{}]}}"#,
                    json_string(&figure.file),
                    figure.size.0,
                    figure.size.1,
                    columns.join(",")
                );
            }
        }
        out.push_str(",\n\"cpython\":");
        out.push_str(
            &self
                .cpython
                .as_ref()
                .map_or_else(|| "null".to_string(), cpython_json),
        );
        out.push_str(",\n\"turns\":[\n");
        let turns: Vec<String> = self
            .trace
            .turns
            .iter()
            .enumerate()
            .map(|(index, turn)| {
                let handles: Vec<String> = turn
                    .handles
                    .iter()
                    .map(|span| {
                        let lane = lanes
                            .iter()
                            .position(|info| info.lane == span.lane)
                            .expect("every span's lane is among the trace's lanes");
                        let task = match &span.lane {
                            Lane::Task(id) => json_string(&id.to_string()),
                            _ => "null".to_string(),
                        };
                        format!(
                            r#"{{"label":{},"kind":{},"lane":{lane},"task":{task},"start_us":{},"end_us":{}}}"#,
                            json_string(&span.label),
                            json_string(span.kind),
                            us(span.start),
                            us(span.end)
                        )
                    })
                    .collect();
                let group = self
                    .groups
                    .get(index)
                    .map_or_else(|| "null".to_string(), |group| json_string(group));
                let (before, after) = self.held.get(index).map_or_else(
                    || ("null".to_string(), "null".to_string()),
                    |(before, after)| (held_json(before), held_json(after)),
                );
                let timeout = turn
                    .timeout
                    .map_or_else(|| "null".to_string(), |t| us(t).to_string());
                format!(
                    r#"{{"number":{},"title":{},"group":{group},"start_us":{},"park_end_us":{},"end_us":{},"timeout_us":{timeout},"parked_us":{},"timers_moved":{},"io_events":{},"handles":[{}],"before":{before},"after":{after}}}"#,
                    turn.number,
                    json_string(&turn.title),
                    us(turn.start),
                    us(turn.park_end()),
                    us(turn.end),
                    us(turn.parked),
                    turn.timers_moved,
                    turn.io_events,
                    handles.join(",")
                )
            })
            .collect();
        out.push_str(&turns.join(",\n"));
        out.push_str("\n]}");
        out
    }

    // ANCHOR: js
    /// The recording as a script that assigns its JSON to
    /// `window.ONELOOP_RECORDINGS[name]` (pages opened over `file://` cannot fetch it).
    pub fn js(&self) -> String {
        format!(
            "// The scenario `{name}` recorded turn by turn for the book's stepper.\n\
             // Written by `cargo course figures`; the schema is in oneloop-trace's recording module.\n\
             window.{RECORDINGS_GLOBAL} = window.{RECORDINGS_GLOBAL} || {{}};\n\
             window.{RECORDINGS_GLOBAL}[{key}] =\n{json};\n",
            name = self.scenario.name,
            key = json_string(self.scenario.name),
            json = self.json()
        )
    }
    // ANCHOR_END: js

    /// The file name of the `.js` recording.
    pub fn file_name(&self) -> String {
        format!("{}.js", self.scenario.name)
    }
}

/// The JSON text a recording's `.js` file assigns to the recordings global.
pub fn recording_json(text: &str) -> Result<&str, String> {
    let prefix = format!("window.{RECORDINGS_GLOBAL}[");
    let start = text
        .find(&prefix)
        .ok_or("no assignment to the recordings global")?;
    let body = text[start..]
        .split_once("] =\n")
        .ok_or("the assignment has no key")?
        .1;
    body.trim_end()
        .strip_suffix(';')
        .ok_or_else(|| "the assignment does not end with `;`".to_string())
}

/// Writes every recording's `.js` file into `dir` (made if missing).
pub fn write_recordings(dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for recording in recordings().map_err(io::Error::other)? {
        let path = dir.join(recording.file_name());
        fs::write(&path, recording.js())?;
        written.push(path);
    }
    Ok(written)
}
