//! The book's figures are up to date.
//!
//! Every figure in `book/src/figures/` is drawn by `oneloop-trace` from a scenario. The
//! reproducible ones (virtual time, or drawn as order only) are drawn again here, in
//! memory, by calling the library (no nested cargo), and compared byte for byte with
//! the committed files. A figure whose bytes may differ run to run is listed by its
//! scenario as not reproducible and only checked to be well-formed.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use oneloop_testkit::watchdog;
use oneloop_trace::{check_xml, figures, parse_json};

fn figures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("book/src/figures")
}

const REDRAW: &str = "run `cargo course figures` to redraw them, then commit book/src/figures/";

#[test]
fn committed_figures_match_what_the_scenarios_draw_now() {
    watchdog(std::time::Duration::from_secs(10), || {
        let dir = figures_dir();
        let drawn = figures().expect("every scenario runs");
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
        let on_disk: BTreeSet<String> = fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        for stale in on_disk.difference(&expected) {
            problems.push(format!(
                "book/src/figures/{stale} is drawn by no scenario (remove it)"
            ));
        }
        assert!(
            problems.is_empty(),
            "the book's figures are not up to date; {REDRAW}:\n  {}",
            problems.join("\n  ")
        );
    });
}

#[test]
fn committed_figures_are_well_formed() {
    watchdog(std::time::Duration::from_secs(10), || {
        let dir = figures_dir();
        let mut checked = 0;
        for entry in fs::read_dir(&dir).expect("book/src/figures exists") {
            let path = entry.expect("a directory entry").path();
            let text = fs::read_to_string(&path).expect("a figure is UTF-8 text");
            let shown = path.display();
            match path.extension().and_then(|e| e.to_str()) {
                Some("svg") => {
                    let elements =
                        check_xml(&text).unwrap_or_else(|e| panic!("{shown}: {e}; {REDRAW}"));
                    assert_eq!(elements[0].name, "svg", "{shown}: the root is <svg>");
                    assert!(
                        elements
                            .iter()
                            .any(|e| e.attribute("class") == Some("handle")),
                        "{shown}: draws no handle"
                    );
                }
                Some("json") => {
                    let json = parse_json(&text).unwrap_or_else(|e| panic!("{shown}: {e}"));
                    assert!(json.get("traceEvents").is_some(), "{shown}: no traceEvents");
                }
                _ => panic!("{shown}: only .svg and .json figures belong here"),
            }
            checked += 1;
        }
        assert!(checked > 0, "no figure found in book/src/figures; {REDRAW}");
    });
}
