//! The recorder, the exports and the stepper, through the public API.

use std::time::Duration;

use oneloop_testkit::watchdog_default;
use oneloop_trace::{Lane, Pace, TimeBase, chrome_json, figure, scenario, scenarios, step};
use serde_json::Value as Json;

/// One element of a parsed SVG: its name, its attributes, and its own text.
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    text: String,
}

impl Element {
    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Parses `svg` as XML; every element in document order.
fn check_xml(svg: &str) -> Result<Vec<Element>, String> {
    let doc = roxmltree::Document::parse(svg).map_err(|e| format!("XML: {e}"))?;
    Ok(doc
        .descendants()
        .filter(|node| node.is_element())
        .map(|node| Element {
            name: node.tag_name().name().to_string(),
            attributes: node
                .attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect(),
            text: node
                .children()
                .filter(|child| child.is_text())
                .filter_map(|child| child.text())
                .collect(),
        })
        .collect())
}

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

fn record(name: &str) -> oneloop_trace::Trace {
    scenario(name)
        .unwrap_or_else(|| panic!("no scenario {name}"))
        .record()
        .expect("the scenario runs")
}

#[test]
fn gather_of_three_sleeps_parks_three_times_and_ends_at_the_longest() {
    watchdog_default(|| {
        let trace = record("gather_sleeps");
        assert_eq!(trace.time_base, TimeBase::Virtual);
        assert_eq!(trace.turns.len(), 11);
        let parks: Vec<(u64, Duration, usize)> = trace
            .turns
            .iter()
            .filter(|turn| !turn.parked.is_zero())
            .map(|turn| (turn.number, turn.parked, turn.timers_moved))
            .collect();
        assert_eq!(
            parks,
            [(3, ms(100), 1), (6, ms(100), 1), (9, ms(100), 1)],
            "one 100 ms park per deadline, each moving one timer"
        );
        assert_eq!(trace.end(), ms(300));
        // The children finish shortest first: 0.1 s in turn 4, 0.2 s in 7, 0.3 s in 10.
        assert_eq!(trace.ran_in(4), ["task 2.0"]);
        assert_eq!(trace.ran_in(7), ["task 3.0"]);
        assert_eq!(trace.ran_in(10), ["task 1.0"]);
        let names: Vec<String> = trace.lanes().into_iter().map(|lane| lane.name).collect();
        assert_eq!(
            names,
            [
                "callbacks",
                "main",
                "sleep 0.3 s",
                "sleep 0.1 s",
                "sleep 0.2 s"
            ]
        );
    });
}

#[test]
fn a_blocking_call_shows_as_one_long_handle_timed_on_the_virtual_clock() {
    watchdog_default(|| {
        let trace = record("ticker_blocked");
        let blocked: Vec<(u64, &str, Duration)> = trace
            .spans()
            .filter(|(_, span)| span.duration() >= ms(100))
            .map(|(turn, span)| (turn.number, span.label.as_str(), span.duration()))
            .collect();
        assert_eq!(blocked, [(2, "main", ms(350))]);
        // The started ticker's steps after the block: at 0.35, 0.45 and 0.55 s.
        let ticks: Vec<Duration> = trace
            .spans()
            .filter(|(turn, span)| span.label == "ticker" && turn.number > 2)
            .map(|(_, span)| span.start)
            .collect();
        assert_eq!(ticks, [ms(350), ms(450), ms(550)]);
    });
}

#[test]
fn two_tasks_taking_turns_alternate_one_step_per_turn() {
    watchdog_default(|| {
        let trace = record("taking_turns");
        let turns: Vec<Vec<&str>> = (1..=6).map(|turn| trace.ran_in(turn)).collect();
        assert_eq!(
            turns,
            [
                vec!["main"],
                vec!["a", "b"],
                vec!["a", "b"],
                vec!["a", "b"],
                vec!["a", "b"],
                vec!["main"],
            ]
        );
    });
}

#[test]
fn two_sockets_are_served_in_the_order_their_data_arrived() {
    watchdog_default(|| {
        let trace = record("two_sockets");
        assert_eq!(trace.time_base, TimeBase::Real);
        let served = trace
            .turns
            .iter()
            .find(|turn| turn.io_events > 0)
            .expect("a turn saw I/O");
        assert_eq!(served.io_events, 2, "one park saw both sockets");
        let labels: Vec<&str> = served.handles.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["reader b", "reader a"]);
    });
}

#[test]
fn the_node_iteration_puts_each_callback_in_its_phase() {
    watchdog_default(|| {
        let trace = record("node_iteration");
        let order: Vec<&str> = trace.spans().map(|(_, span)| span.label.as_str()).collect();
        assert_eq!(
            order,
            [
                "main script",
                "nextTick",
                "promise",
                "pending callback",
                "pipe readable",
                "nextTick",
                "microtask",
                "setImmediate",
                "close callback",
                "setTimeout 0",
            ]
        );
        let placed: Vec<(String, String)> = trace
            .spans()
            .filter(|(_, span)| span.lane == Lane::Callbacks)
            .map(|(turn, span)| (turn.title.clone(), span.label.clone()))
            .collect();
        let expected = [
            ("main", "main script"),
            ("pending", "pending callback"),
            ("poll", "pipe readable"),
            ("check", "setImmediate"),
            ("close", "close callback"),
            ("timers", "setTimeout 0"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
            .collect();
        // The columns follow libuv 1.45 and later: the main script, the timers run
        // before the first iteration, then each iteration's six phases, timers last.
        let titles: Vec<&str> = trace.turns.iter().map(|t| t.title.as_str()).collect();
        let iteration = ["pending", "idle", "poll", "check", "close", "timers"];
        let mut layout = vec!["main", "timers"];
        layout.extend(iteration);
        layout.extend(iteration);
        assert_eq!(titles, layout);
        // The 1 ms timer is not due before the first iteration (virtual time has not
        // moved); iteration 2's poll jumps the clock to it, and the timers phase that
        // ends iteration 2, the last column, runs it.
        let column_of = |label: &str| {
            trace
                .spans()
                .find(|(_, span)| span.label == label)
                .map(|(turn, _)| turn.number)
        };
        assert_eq!(column_of("setTimeout 0"), Some(2 + 6 + 6));
        assert!(
            trace.turns[1].handles.is_empty(),
            "nothing is due before the first iteration"
        );
        assert_eq!(placed, expected);
    });
}

/// Every `X` event of one lane, in file order: (ts, dur).
fn lane_events(events: &[Json], tid: f64) -> Vec<(f64, f64)> {
    events
        .iter()
        .filter(|e| e.get("ph").and_then(Json::as_str) == Some("X"))
        .filter(|e| e.get("tid").and_then(Json::as_f64) == Some(tid))
        .map(|e| {
            (
                e.get("ts").and_then(Json::as_f64).expect("ts"),
                e.get("dur").and_then(Json::as_f64).expect("dur"),
            )
        })
        .collect()
}

#[test]
fn the_chrome_json_reads_back_with_ordered_lanes_and_no_negative_duration() {
    watchdog_default(|| {
        let trace = record("gather_sleeps");
        let text = chrome_json(&trace, "gather \"sleeps\"");
        let json = serde_json::from_str::<Json>(&text).expect("the export is valid JSON");
        let events = json
            .get("traceEvents")
            .and_then(Json::as_array)
            .expect("a traceEvents array");
        let handles: usize = trace.turns.iter().map(|turn| turn.handles.len()).sum();
        let lanes = trace.lanes().len() + 2;
        // Metadata: a process name, then a name and a sort index per lane; then per
        // turn a turn event and a park event, and one event per handle.
        assert_eq!(
            events.len(),
            1 + 2 * lanes + 2 * trace.turns.len() + handles
        );
        let process = &events[0];
        assert_eq!(
            process
                .get("args")
                .and_then(|a| a.get("name"))
                .and_then(Json::as_str),
            Some("gather \"sleeps\""),
            "the title survives escaping"
        );
        let thread_names: Vec<&str> = events
            .iter()
            .filter(|e| e.get("name").and_then(Json::as_str) == Some("thread_name"))
            .filter_map(|e| e.get("args")?.get("name")?.as_str())
            .collect();
        assert_eq!(
            thread_names,
            [
                "turns",
                "parked",
                "callbacks",
                "main",
                "sleep 0.3 s",
                "sleep 0.1 s",
                "sleep 0.2 s"
            ]
        );
        let handle_names: Vec<&str> = events
            .iter()
            .filter(|e| e.get("ph").and_then(Json::as_str) == Some("X"))
            .filter_map(|e| e.get("name")?.as_str())
            .filter(|name| !name.starts_with("turn ") && *name != "park")
            .collect();
        let expected: Vec<&str> = trace.spans().map(|(_, s)| s.label.as_str()).collect();
        assert_eq!(handle_names, expected);
        for tid in 1..=lanes {
            let lane = lane_events(events, tid as f64);
            assert!(!lane.is_empty(), "lane {tid} has events");
            for pair in lane.windows(2) {
                assert!(pair[0].0 <= pair[1].0, "lane {tid}: ts goes back: {pair:?}");
            }
            assert!(lane.iter().all(|(_, dur)| *dur >= 0.0));
        }
        // The parks are 100 ms = 100000 µs each.
        let parks: Vec<f64> = lane_events(events, 2.0)
            .into_iter()
            .map(|(_, dur)| dur)
            .filter(|dur| *dur > 0.0)
            .collect();
        assert_eq!(parks, [100_000.0, 100_000.0, 100_000.0]);
    });
}

#[test]
fn every_figure_is_well_formed_svg_with_its_lanes_and_columns() {
    watchdog_default(|| {
        for scenario in scenarios() {
            let figure = figure(scenario).expect("the figure is drawn");
            let elements = check_xml(&figure.svg)
                .unwrap_or_else(|e| panic!("{}: not well-formed: {e}", scenario.name));
            let root = &elements[0];
            assert_eq!(root.name, "svg");
            assert_eq!(
                root.attribute("viewBox")
                    .map(|v| v.starts_with("0 0 750.0 ")),
                Some(true)
            );
            let texts: Vec<&str> = elements
                .iter()
                .filter(|e| e.name == "text")
                .map(|e| e.text.as_str())
                .collect();
            assert!(texts.contains(&scenario.title), "{}: title", scenario.name);
            for lane in figure.trace.lanes() {
                assert!(
                    texts.iter().any(|t| *t == lane.name || t.ends_with('…')),
                    "{}: lane {} is named",
                    scenario.name,
                    lane.name
                );
            }
            let bars = elements
                .iter()
                .filter(|e| e.name == "rect" && e.attribute("class") == Some("handle"))
                .count();
            let handles: usize = figure.trace.turns.iter().map(|t| t.handles.len()).sum();
            assert_eq!(bars, handles, "{}: one bar per handle", scenario.name);
            // Text stays readable at the book's width.
            for element in &elements {
                if let Some(size) = element.attribute("font-size") {
                    let size: f64 = size.parse().expect("a numeric font size");
                    assert!(size >= 11.0, "{}: font-size {size}", scenario.name);
                }
            }
            if let Some(json) = &figure.json {
                serde_json::from_str::<Json>(json).expect("the JSON export parses");
            }
        }
    });
}

#[test]
fn blocking_handles_are_marked_and_parking_is_drawn_apart() {
    watchdog_default(|| {
        let figure = figure(scenario("ticker_blocked").expect("known")).expect("drawn");
        let elements = check_xml(&figure.svg).expect("well-formed");
        let blocked = elements
            .iter()
            .filter(|e| e.attribute("class") == Some("blocked"))
            .count();
        assert_eq!(blocked, 1, "main's 350 ms block is marked");
        assert!(
            elements
                .iter()
                .any(|e| e.name == "text" && e.text == "blocked 350 ms")
        );
        let parks = elements
            .iter()
            .filter(|e| e.name == "rect" && e.attribute("fill") == Some("url(#parked)"))
            .count();
        // Two 100 ms parks between the ticks, plus the legend's swatch and the lane's.
        assert_eq!(parks, 2 + 2);
    });
}

#[test]
fn virtual_time_figures_are_the_same_bytes_every_run() {
    watchdog_default(|| {
        for scenario in scenarios().iter().filter(|s| s.reproducible) {
            let first = figure(scenario).expect("drawn");
            let second = figure(scenario).expect("drawn");
            assert_eq!(first.svg, second.svg, "{}: svg differs", scenario.name);
            assert_eq!(first.json, second.json, "{}: json differs", scenario.name);
        }
    });
}

#[test]
fn the_stepper_prints_every_turn_with_queue_timers_and_what_ran() {
    watchdog_default(|| {
        let chosen = scenario("gather_sleeps").expect("known");
        let mut out = Vec::new();
        step(chosen, Pace::All, &mut std::io::empty(), &mut out).expect("steps");
        let text = String::from_utf8(out).expect("UTF-8");
        let turns: Vec<&str> = text.lines().filter(|l| l.starts_with("turn ")).collect();
        let expected: Vec<String> = (1..=11).map(|n| format!("turn {n}")).collect();
        assert_eq!(turns, expected);
        assert!(text.contains("  ready:   task 1.0, task 2.0, task 3.0"));
        assert!(text.contains("  timers:  when=0.100 sleep, when=0.200 sleep, when=0.300 sleep"));
        assert!(text.contains("  park:    timeout 100 ms, parked 100 ms, 1 timer(s) moved"));
        assert!(text.contains("  ran:     sleep (TimerHandle, 0)"));
        assert!(text.ends_with("main finished after 11 turns\n"));
        assert!(!text.contains("[Enter"), "--all does not wait");
    });
}

#[test]
fn the_stepper_waits_for_enter_and_runs_on_at_end_of_input() {
    watchdog_default(|| {
        let chosen = scenario("taking_turns").expect("known");
        let mut out = Vec::new();
        let mut input: &[u8] = b"\n\n";
        step(chosen, Pace::Enter, &mut input, &mut out).expect("steps");
        let text = String::from_utf8(out).expect("UTF-8");
        // Two prompts answered, a third met the end of input and the rest ran on.
        assert_eq!(text.matches("[Enter: next turn]").count(), 3);
        assert!(text.ends_with("main finished after 6 turns\n"));
    });
}

#[test]
fn the_stepper_shows_the_selector_registrations_of_the_socket_scenario() {
    watchdog_default(|| {
        let chosen = scenario("two_sockets").expect("known");
        let mut out = Vec::new();
        step(chosen, Pace::All, &mut std::io::empty(), &mut out).expect("steps");
        let text = String::from_utf8(out).expect("UTF-8");
        let io_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("  io:")).collect();
        assert_eq!(io_lines.len(), 4, "one io line per turn:\n{text}");
        assert!(io_lines[0].ends_with("(empty)"));
        assert!(
            !io_lines[2].ends_with("(empty)"),
            "both readers registered: {text}"
        );
    });
}

#[test]
fn the_pulse_ticks_300_ms_apart_beside_blocking_chunks_and_10_ms_apart_beside_sleeping_ones() {
    watchdog_default(|| {
        let pulse_steps = |name: &str| -> Vec<Duration> {
            record(name)
                .spans()
                .filter(|(_, span)| span.label == "pulse")
                .map(|(_, span)| span.start)
                .collect()
        };
        assert_eq!(
            pulse_steps("pulse_blocking"),
            [ms(0), ms(300), ms(600), ms(900), ms(1000)]
        );
        let sleeping = pulse_steps("pulse_sleeping");
        assert_eq!(sleeping.len(), 102);
        assert!(sleeping.windows(2).all(|pair| pair[1] - pair[0] == ms(10)));
    });
}

#[test]
fn fifty_blocking_tasks_make_one_five_second_turn_and_fifty_sleeping_ones_take_100_ms() {
    watchdog_default(|| {
        let longest = |trace: &oneloop_trace::Trace| {
            trace.turns.iter().map(|turn| turn.end - turn.start).max()
        };
        let blocking = record("fifty_blocking");
        assert_eq!(blocking.turns.len(), 3);
        assert_eq!(blocking.ran_in(2).len(), 50);
        assert_eq!(longest(&blocking), Some(ms(5000)));
        assert_eq!(blocking.end(), ms(5000));
        let sleeping = record("fifty_sleeping");
        assert_eq!(sleeping.turns.len(), 5);
        assert_eq!(
            sleeping.turns[2].timers_moved, 50,
            "one park moves all fifty timers"
        );
        assert_eq!(sleeping.end(), ms(100));
    });
}

#[test]
fn with_the_call_on_a_worker_thread_no_handle_blocks_the_loop() {
    watchdog_default(|| {
        let trace = record("ticker_offloaded");
        assert_eq!(trace.time_base, TimeBase::Real);
        let ticker_steps = trace.spans().filter(|(_, s)| s.label == "ticker").count();
        assert_eq!(ticker_steps, 4, "the first step and one per tick");
        let blocked: Vec<&str> = trace
            .spans()
            .filter(|(_, span)| span.duration() >= ms(100))
            .map(|(_, span)| span.label.as_str())
            .collect();
        assert!(
            blocked.is_empty(),
            "handles that held the loop: {blocked:?}"
        );
    });
}
