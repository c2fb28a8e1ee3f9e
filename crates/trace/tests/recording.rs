//! The stepper's recordings, through the public API: what each turn held and ran.

use std::time::Duration;

use oneloop_testkit::watchdog_default;
use oneloop_trace::{Recording, figure as draw, record, scenario};
use serde_json::Value as Json;

mod common;
use common::recording_json::{parse_recording_js, turn_structure};

fn recording(name: &str) -> Recording {
    record(scenario(name).unwrap_or_else(|| panic!("no scenario {name}"))).expect("it runs")
}

#[test]
fn every_turn_of_gather_keeps_the_queue_and_the_timer_heap_around_it() {
    watchdog_default(|| {
        let recording = recording("gather_sleeps");
        assert_eq!(recording.trace.turns.len(), 11);
        assert_eq!(recording.held.len(), 11, "one snapshot pair per turn");
        let (before, after) = &recording.held[1];
        assert_eq!(before.ready, ["task 1.0", "task 2.0", "task 3.0"]);
        assert!(after.ready.is_empty(), "the children ran and now sleep");
        assert_eq!(after.timers.len(), 3, "three sleeps in the heap: {after:?}");
        // Turn 3 parks 100 ms and moves the earliest timer: the heap loses its head.
        let (before, after) = &recording.held[2];
        assert_eq!(before.timers.len(), 3);
        assert_eq!(after.timers.len(), 2);
        assert_eq!(
            after.ready,
            ["task 2.0"],
            "the woken child waits for turn 4"
        );
        assert_eq!(recording.trace.turns[2].parked, Duration::from_millis(100));
        // Between two turns nothing happens in virtual time.
        for pair in recording.held.windows(2) {
            assert_eq!(pair[0].1, pair[1].0);
        }
    });
}

#[test]
fn the_socket_recording_holds_the_selector_registrations_while_both_readers_wait() {
    watchdog_default(|| {
        let recording = recording("two_sockets");
        let (before, _) = &recording.held[2];
        let io: Vec<&String> = before
            .registrations
            .iter()
            .filter(|(layer, _)| layer == "io")
            .flat_map(|(_, lines)| lines)
            .collect();
        assert_eq!(io.len(), 2, "two readers registered: {io:?}");
        assert_eq!(
            recording.trace.turns[2].timeout, None,
            "it waits for an event"
        );
    });
}

#[test]
fn a_recording_reads_back_from_its_script_with_the_same_turns() {
    watchdog_default(|| {
        let recording = recording("taking_turns");
        let js = recording.js();
        assert!(js.contains("window.ONELOOP_RECORDINGS[\"taking_turns\"] =\n"));
        let json = parse_recording_js(&js).expect("the script's JSON parses");
        let structure = turn_structure(&json).expect("it has turns");
        let ran: Vec<Vec<String>> = recording
            .trace
            .turns
            .iter()
            .map(|turn| turn.handles.iter().map(|s| s.label.clone()).collect())
            .collect();
        let read: Vec<Vec<String>> = structure
            .iter()
            .map(|turn| {
                turn.iter()
                    .map(|h| h.split_once(": ").expect("lane: label").1.to_string())
                    .collect()
            })
            .collect();
        assert_eq!(read, ran);
        let Some(Json::Array(turns)) = json.get("turns") else {
            panic!("no turns array");
        };
        let first = &turns[0];
        assert_eq!(first.get("timeout_us").and_then(Json::as_f64), Some(0.0));
        assert!(first.get("before").and_then(|b| b.get("ready")).is_some());
    });
}

#[test]
fn the_node_recording_groups_its_phases_by_iteration_and_has_no_snapshots() {
    watchdog_default(|| {
        let recording = recording("node_iteration");
        assert!(recording.held.is_empty());
        assert_eq!(recording.groups.len(), recording.trace.turns.len());
        assert_eq!(recording.groups[0], "before iteration 1");
        assert_eq!(recording.groups[2], "iteration 1");
        let json = parse_recording_js(&recording.js()).expect("parses");
        assert_eq!(json.get("loop").and_then(Json::as_str), Some("node"));
    });
}

#[test]
fn a_recording_knows_the_columns_of_the_figure_that_draws_its_turns() {
    watchdog_default(|| {
        let offloaded = recording("ticker_offloaded");
        let recording = recording("gather_sleeps");
        let figure = recording
            .figure
            .expect("the virtual-time figure draws these turns");
        assert_eq!(figure.file, "figures/gather_sleeps.svg");
        assert_eq!(figure.columns.len(), recording.trace.turns.len());
        let width = figure.size.0;
        for pair in figure.columns.windows(2) {
            assert!(pair[0].0 < pair[0].1, "a column has a width: {pair:?}");
            assert!(
                pair[0].1 <= pair[1].0 + 1e-9,
                "columns do not overlap: {pair:?}"
            );
        }
        assert!(figure.columns.last().expect("columns").1 <= width);
        // The size is the drawn SVG's own.
        let svg = draw(scenario("gather_sleeps").expect("known"))
            .expect("drawn")
            .svg;
        let doc = roxmltree::Document::parse(&svg).expect("the figure is XML");
        let size = |name: &str| -> f64 {
            doc.root_element()
                .attribute(name)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("the <svg> has a numeric {name}"))
        };
        assert_eq!(figure.size, (size("width"), size("height")));
        // The figure of the thread run is another sample run: no columns to mark.
        assert!(offloaded.figure.is_none());
    });
}

#[test]
fn the_phases_quiz_places_each_line_in_the_phase_that_printed_it() {
    watchdog_default(|| {
        let recording = recording("phases_quiz");
        let placed: Vec<(String, String, String)> = recording
            .trace
            .turns
            .iter()
            .enumerate()
            .flat_map(|(index, turn)| {
                let group = recording.groups[index].clone();
                turn.handles
                    .iter()
                    .map(move |span| (span.label.clone(), turn.title.clone(), group.clone()))
            })
            .collect();
        let find = |label: &str| {
            placed
                .iter()
                .find(|(line, _, _)| line == label)
                .map(|(_, phase, group)| format!("{phase} ({group})"))
        };
        assert_eq!(find("main").as_deref(), Some("main (before iteration 1)"));
        assert_eq!(find("tick").as_deref(), Some("main (before iteration 1)"));
        assert_eq!(find("io").as_deref(), Some("poll (iteration 1)"));
        assert_eq!(
            find("tick in immediate").as_deref(),
            Some("check (iteration 1)")
        );
        assert_eq!(find("close").as_deref(), Some("close (iteration 1)"));
        assert_eq!(find("immediate 3").as_deref(), Some("check (iteration 2)"));
        assert_eq!(placed.len(), 9, "every line of the quiz, once: {placed:?}");
    });
}
