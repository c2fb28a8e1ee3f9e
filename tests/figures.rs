//! The book's figures are up to date.
//!
//! Every figure in `book/src/figures/` is drawn by `oneloop-trace` from a scenario, or
//! is one of its diagrams (drawn from a table or a recorded run in the code). The
//! reproducible ones (virtual time, or drawn as order only) are drawn again here, in
//! memory, by calling the library (no nested cargo), and compared byte for byte with
//! the committed files. A figure whose bytes may differ run to run is listed by its
//! scenario as not reproducible and only checked to be well-formed.
//!
//! The browser stepper's recordings in `book/src/stepper/data/` are checked the same
//! way: a virtual-time recording must be the same bytes; one made on a real clock
//! (real sockets, a worker thread) must have the same schema and the same turn
//! structure (the handles of every turn, in order), since its times differ every run.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use oneloop_testkit::watchdog_default;
use oneloop_trace::{
    Diagram, Figure, RECORDING_SCHEMA, Recording, TimeBase, figure, record, scenario, scenarios,
};
use serde_json::Value as Json;

#[path = "../crates/trace/tests/common/recording_json.rs"]
mod recording_json;
use recording_json::{parse_recording_js, turn_structure};

fn figures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("book/src/figures")
}

fn recordings_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("book/src/stepper/data")
}

const RECORD: &str =
    "run `cargo course figures` to record them again, then commit book/src/stepper/data/";

const REDRAW: &str = "run `cargo course figures` to redraw them, then commit book/src/figures/";

/// The names of the files in `dir` that `expected` does not hold (none if `dir` cannot
/// be read).
fn unexpected_files(dir: &Path, expected: &BTreeSet<String>) -> Vec<String> {
    let on_disk: BTreeSet<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    on_disk.difference(expected).cloned().collect()
}

/// Fails with every problem found, one a line, after `heading`.
fn assert_no_problems(problems: &[String], heading: &str) {
    assert!(
        problems.is_empty(),
        "{heading}:\n  {}",
        problems.join("\n  ")
    );
}

// Each scenario is drawn or recorded under a watchdog of its own: all of them together
// take a few seconds on a quiet machine and more than the watchdog's limit at a load
// average of ten, while one of them stays far below it.

/// Every scenario's figure, each drawn under the default watchdog.
fn figures() -> Vec<Figure> {
    scenarios()
        .iter()
        .map(|scenario| {
            watchdog_default(move || figure(scenario))
                .unwrap_or_else(|e| panic!("every scenario runs: {e}"))
        })
        .collect()
}

/// Every scenario's recording, each made under the default watchdog, all at once, each
/// on a loop of its own: the ones on the real clock spend most of their time parked
/// until a timer is due, so together they take about as long as the longest, not the
/// sum. (A recording on the real clock whose turns come out merged is made again by
/// the caller.) In the scenarios' order.
fn recordings() -> Vec<Recording> {
    std::thread::scope(|scope| {
        let making: Vec<_> = scenarios()
            .iter()
            .map(|scenario| scope.spawn(move || watchdog_default(move || record(scenario))))
            .collect();
        making
            .into_iter()
            .map(|made| {
                made.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    .unwrap_or_else(|e| panic!("every scenario runs: {e}"))
            })
            .collect()
    })
}

/// Every diagram, drawn under the default watchdog.
fn diagrams() -> Vec<Diagram> {
    watchdog_default(oneloop_trace::diagrams).expect("every diagram's run works")
}

#[test]
fn committed_figures_match_what_the_scenarios_draw_now() {
    {
        let dir = figures_dir();
        let drawn = figures();
        let mut problems = Vec::new();
        let mut expected = BTreeSet::new();
        for figure in &drawn {
            for (name, contents) in figure.files() {
                expected.insert(name.clone());
                let path = dir.join(&name);
                let Ok(committed) = fs::read_to_string(&path) else {
                    problems.push(format!("book/src/figures/{name} is missing"));
                    continue;
                };
                if figure.reproducible && committed != contents {
                    problems.push(format!(
                        "book/src/figures/{name} is out of date (the scenario `{}` draws it differently now)",
                        figure.name
                    ));
                }
            }
        }
        for diagram in diagrams() {
            let name = format!("{}.svg", diagram.name);
            expected.insert(name.clone());
            match fs::read_to_string(dir.join(&name)) {
                Err(_) => problems.push(format!("book/src/figures/{name} is missing")),
                Ok(committed) if committed != diagram.svg => problems.push(format!(
                    "book/src/figures/{name} is out of date (the diagram is drawn differently now)"
                )),
                Ok(_) => {}
            }
        }
        for stale in unexpected_files(&dir, &expected) {
            problems.push(format!(
                "book/src/figures/{stale} is drawn by no scenario (remove it)"
            ));
        }
        assert_no_problems(
            &problems,
            &format!("the book's figures are not up to date; {REDRAW}"),
        );
    }
}

#[test]
fn committed_figures_are_well_formed() {
    {
        let dir = figures_dir();
        let mut checked = 0;
        for entry in fs::read_dir(&dir).expect("book/src/figures exists") {
            let path = entry.expect("a directory entry").path();
            let text = fs::read_to_string(&path).expect("a figure is UTF-8 text");
            let shown = path.display();
            match path.extension().and_then(|e| e.to_str()) {
                Some("svg") => {
                    let doc = roxmltree::Document::parse(&text)
                        .unwrap_or_else(|e| panic!("{shown}: {e}; {REDRAW}"));
                    assert_eq!(
                        doc.root_element().tag_name().name(),
                        "svg",
                        "{shown}: the root is <svg>"
                    );
                    // A timeline draws handles; a diagram draws boxes.
                    let drawn = if doc.root_element().attribute("class") == Some("diagram") {
                        "node"
                    } else {
                        "handle"
                    };
                    assert!(
                        doc.descendants()
                            .any(|e| e.attribute("class") == Some(drawn)),
                        "{shown}: draws no {drawn}"
                    );
                }
                Some("json") => {
                    let json: Json =
                        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{shown}: {e}"));
                    assert!(json.get("traceEvents").is_some(), "{shown}: no traceEvents");
                }
                _ => panic!("{shown}: only .svg and .json figures belong here"),
            }
            checked += 1;
        }
        assert!(checked > 0, "no figure found in book/src/figures; {REDRAW}");
    }
}

/// The member names of an object, and of its first `turns` entry and first handle:
/// the recording's schema as far as a real-clock run can be compared.
fn shape(json: &Json) -> Vec<String> {
    fn keys(json: Option<&Json>, prefix: &str, out: &mut Vec<String>) {
        if let Some(Json::Object(members)) = json {
            out.extend(members.iter().map(|(key, _)| format!("{prefix}{key}")));
        }
    }
    let mut out = Vec::new();
    keys(Some(json), "", &mut out);
    let first_turn = match json.get("turns") {
        Some(Json::Array(turns)) => turns.first(),
        _ => None,
    };
    keys(first_turn, "turn.", &mut out);
    let first_handle = match first_turn.and_then(|turn| turn.get("handles")) {
        Some(Json::Array(handles)) => handles.first(),
        _ => None,
    };
    keys(first_handle, "handle.", &mut out);
    keys(
        first_turn.and_then(|turn| turn.get("before")),
        "before.",
        &mut out,
    );
    out
}

#[test]
fn committed_recordings_match_what_the_scenarios_record_now() {
    {
        let dir = recordings_dir();
        let recorded = recordings();
        let mut problems = Vec::new();
        let mut expected = BTreeSet::new();
        for recording in &recorded {
            let name = recording.file_name();
            expected.insert(name.clone());
            let Ok(committed) = fs::read_to_string(dir.join(&name)) else {
                problems.push(format!("book/src/stepper/data/{name} is missing"));
                continue;
            };
            let fresh = recording.js();
            if recording.trace.time_base == TimeBase::Virtual {
                if committed != fresh {
                    problems.push(format!(
                        "book/src/stepper/data/{name} is out of date (the scenario records it differently now)"
                    ));
                }
                continue;
            }
            // A real clock: compare the schema and the turn structure, not the times.
            let committed = match parse_recording_js(&committed) {
                Ok(json) => json,
                Err(error) => {
                    problems.push(format!("book/src/stepper/data/{name}: {error}"));
                    continue;
                }
            };
            let fresh = parse_recording_js(&fresh).expect("a fresh recording reads back");
            if shape(&committed) != shape(&fresh) {
                problems.push(format!(
                    "book/src/stepper/data/{name} is in an older schema than the recorder writes"
                ));
                continue;
            }
            let want = turn_structure(&committed).expect("the committed recording has turns");
            // A worker thread's timing may, on a loaded machine, merge two turns once in
            // a while; a second and third recording tell that apart from a changed program.
            let mut got = turn_structure(&fresh).expect("a fresh recording has turns");
            for _ in 0..2 {
                if got == want {
                    break;
                }
                let again =
                    oneloop_trace::record(scenario(recording.scenario.name).expect("known"))
                        .expect("the scenario runs");
                got = turn_structure(&parse_recording_js(&again.js()).expect("reads back"))
                    .expect("a fresh recording has turns");
            }
            if got != want {
                problems.push(format!(
                    "book/src/stepper/data/{name} is out of date: its turns ran {want:?}, the scenario now runs {got:?}"
                ));
            }
        }
        for stale in unexpected_files(&dir, &expected) {
            problems.push(format!(
                "book/src/stepper/data/{stale} is recorded by no scenario (remove it)"
            ));
        }
        assert_no_problems(
            &problems,
            &format!("the stepper's recordings are not up to date; {RECORD}"),
        );
    }
}

#[test]
fn committed_recordings_are_well_formed_and_match_their_figures() {
    {
        let dir = recordings_dir();
        let drawn = figures();
        let mut checked = 0;
        for figure in &drawn {
            let path = dir.join(format!("{}.js", figure.name));
            let shown = path.display();
            let text =
                fs::read_to_string(&path).unwrap_or_else(|e| panic!("{shown}: {e}; {RECORD}"));
            let json = parse_recording_js(&text).unwrap_or_else(|e| panic!("{shown}: {e}"));
            assert_eq!(
                json.get("schema").and_then(Json::as_str),
                Some(RECORDING_SCHEMA),
                "{shown}: the schema"
            );
            assert_eq!(
                json.get("name").and_then(Json::as_str),
                Some(figure.name),
                "{shown}: the name"
            );
            if !figure.reproducible {
                // One sample run each: the figure and the recording are different runs.
                checked += 1;
                continue;
            }
            // The same turns, running the same handles, as the figure beside it draws.
            let structure = turn_structure(&json).unwrap_or_else(|e| panic!("{shown}: {e}"));
            let drawn: Vec<Vec<String>> = figure
                .trace
                .turns
                .iter()
                .map(|turn| turn.handles.iter().map(|span| span.label.clone()).collect())
                .collect();
            let labels: Vec<Vec<String>> = structure
                .iter()
                .map(|turn| {
                    turn.iter()
                        .map(|handle| handle.split_once(": ").expect("lane: label").1.to_string())
                        .collect()
                })
                .collect();
            assert_eq!(labels, drawn, "{shown}: the turns differ from the figure's");
            checked += 1;
        }
        assert!(checked > 0, "no recording checked; {RECORD}");
    }
}
