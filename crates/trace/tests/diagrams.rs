//! The diagrams of chapters 1 to 3 say what the code does.

use std::collections::BTreeSet;
use std::time::Duration;

use oneloop_coroutine::{COUNTDOWN_TRANSITIONS, CoError, Coroutine, Countdown, Step};
use oneloop_testkit::watchdog;
use oneloop_trace::diagrams::{Message, loop_parts, waker_round_trip};

/// Whether `when` holds for `n`, the local the state holds.
fn holds(when: &str, n: u32) -> bool {
    match when {
        "n > 0" => n > 0,
        "n == 0" => n == 0,
        "n - 1 > 0" => n > 1,
        "n - 1 == 0" => n == 1,
        "always" => true,
        other => panic!("the table has a condition this test cannot read: {other:?}"),
    }
}

#[test]
fn the_countdown_table_is_exactly_what_resume_does() {
    let mut seen = BTreeSet::new();
    for start in 0..=3 {
        let mut countdown = Countdown::new(start);
        // The local the state holds: the argument, then the value last yielded.
        let mut n = start;
        for _ in 0..(start + 2) {
            let from = countdown.state_name();
            let answer = countdown.send(());
            let returns = match &answer {
                Ok(Step::Yielded(_)) => "Yielded",
                Ok(Step::Complete(_)) => "Complete",
                Err(CoError::ResumedAfterCompletion) => "Err",
                Err(other) => panic!("a countdown raised {other:?}"),
            };
            let to = countdown.state_name();
            let row = COUNTDOWN_TRANSITIONS
                .iter()
                .find(|t| t.from == from && t.to == to && t.returns == returns)
                .unwrap_or_else(|| {
                    panic!("resume went {from} -> {to} returning {returns}: no row says so")
                });
            assert!(
                holds(row.when, n),
                "{from} -> {to} with n = {n}, but the row says only when {}",
                row.when
            );
            seen.insert((row.from, row.to, row.returns));
            if let Ok(Step::Yielded(value)) = answer {
                n = value;
            }
        }
    }
    assert_eq!(
        seen.len(),
        COUNTDOWN_TRANSITIONS.len(),
        "every row of the table is a move resume makes"
    );
}

fn arrow(message: &Message) -> (&str, &str, &str) {
    (message.from, message.to, message.what.as_str())
}

#[test]
fn the_wake_goes_straight_to_block_on_which_polls_again_from_the_top() {
    let messages = watchdog(Duration::from_secs(10), || {
        waker_round_trip().expect("the round trip runs")
    });
    let arrows: Vec<_> = messages.iter().map(arrow).collect();
    // Polls go down the chain and answers come back up; block_on polls three times.
    let top_polls = arrows
        .iter()
        .filter(|a| **a == ("block_on", "join", "poll"))
        .count();
    assert_eq!(top_polls, 3, "{arrows:#?}");
    let wakes: Vec<usize> = (0..arrows.len())
        .filter(|&i| arrows[i].2 == "wake")
        .collect();
    assert_eq!(wakes.len(), 2, "one wake per value set: {arrows:#?}");
    for &i in &wakes {
        // The wake comes from the producer, to block_on itself, not to the leaf.
        assert_eq!(arrows[i], ("producer thread", "block_on", "wake"));
        assert!(
            arrows[i - 1].2.starts_with("set_result"),
            "a wake follows a set_result"
        );
        // The next poll starts at the top of the chain.
        assert_eq!(arrows[i + 1], ("block_on", "join", "poll"));
    }
    // Before each wake, the chain answered Pending all the way up.
    assert_eq!(arrows[wakes[0] - 2], ("join", "block_on", "Pending"));
    // A side of join that finished is not polled again.
    let stock_polls_after_ready = arrows
        .iter()
        .skip_while(|a| a.2 != "Ready(Ok(7))")
        .filter(|a| a.1 == "stock.wait()" && a.2 == "poll")
        .count();
    assert_eq!(stock_polls_after_ready, 0, "{arrows:#?}");
    assert_eq!(
        arrows.last(),
        Some(&("join", "block_on", "Ready((Ok(120), Ok(7)))"))
    );
}

#[test]
fn the_loop_parts_snapshot_shows_each_part_holding_what_main_gave_it() {
    let snapshot = watchdog(Duration::from_secs(10), || {
        loop_parts().expect("the loop runs two turns")
    });
    let names: Vec<&str> = snapshot.layers.iter().map(|layer| layer.name).collect();
    assert_eq!(names, ["offload", "timers", "io"], "outermost first");
    let lines = |name: &str| {
        snapshot
            .layers
            .iter()
            .find(|layer| layer.name == name)
            .map(|layer| layer.lines.clone())
            .unwrap_or_default()
    };
    assert!(lines("offload").contains(&"inbox: 1 pending".to_string()));
    assert_eq!(lines("timers"), ["when=1.000 sleep"]);
    let io = lines("io");
    assert_eq!(io.len(), 1, "{io:?}");
    assert!(io[0].ends_with(": a task waits to read"), "{io:?}");
    // The thread-safe call waits in the inbox, not on the ready queue, until a park.
    assert_eq!(snapshot.ready, ["greet"]);
    assert_eq!(snapshot.turn, 2);
}

/// The labels over the columns of a timeline figure, in order.
fn column_labels(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the figure is XML");
    let columns = doc
        .descendants()
        .find(|node| node.attribute("class") == Some("columns"))
        .expect("a timeline has a columns group");
    columns
        .children()
        .filter(|node| node.has_tag_name("text"))
        .filter_map(|node| node.text().map(str::to_string))
        .skip(1) // the heading, "turn"
        .collect()
}

#[test]
fn a_long_run_labels_every_twentieth_turn_and_a_short_one_every_turn() {
    let labels = |name: &str| {
        let scenario = oneloop_trace::scenario(name).expect("a known scenario");
        column_labels(&oneloop_trace::figure(scenario).expect("it draws").svg)
    };
    let pulse = labels("pulse_sleeping");
    let mut want = vec!["1".to_string()];
    want.extend((1..=10).map(|k| (20 * k).to_string()));
    assert_eq!(
        pulse, want,
        "pulse_sleeping's 213 turns: the first, then every 20th"
    );
    let gather = labels("gather_sleeps");
    let every: Vec<String> = (1..=gather.len()).map(|k| k.to_string()).collect();
    assert_eq!(gather, every, "gather_sleeps: every turn is labelled");
}

#[test]
fn fifty_compared_draws_both_runs_on_one_axis_from_the_scenarios() {
    let svg = oneloop_trace::diagrams::fifty_compared().expect("both scenarios run");
    let doc = roxmltree::Document::parse(&svg).expect("the figure is XML");
    let text: Vec<&str> = doc.descendants().filter_map(|node| node.text()).collect();
    assert!(
        text.contains(&"blocking (block_for): 3 turns, ends at 5 s"),
        "{text:?}"
    );
    assert!(
        text.contains(&"sleeping (sleep): 5 turns, ends at 100 ms"),
        "{text:?}"
    );
    // One handle bar per handle run: main's steps and fifty tasks' steps in each run.
    let bars = doc
        .descendants()
        .filter(|node| node.attribute("class") == Some("handle"))
        .count();
    let handles: usize = ["fifty_blocking", "fifty_sleeping"]
        .iter()
        .map(|name| {
            let scenario = oneloop_trace::scenario(name).expect("known");
            scenario.record().expect("it runs").spans().count()
        })
        .sum();
    assert_eq!(bars, handles);
    // The same scale: the blocking run's last bar ends at the right edge of the plot,
    // the sleeping run's park is a fiftieth of it.
    let parks: Vec<f64> = doc
        .descendants()
        .filter(|node| node.attribute("fill") == Some("url(#parked)") && node.has_tag_name("rect"))
        .filter(|node| node.parent().and_then(|p| p.attribute("class")) == Some("parked"))
        .map(|node| {
            node.attribute("width")
                .expect("a width")
                .parse()
                .expect("a number")
        })
        .collect();
    assert_eq!(
        parks.len(),
        1,
        "only the sleeping run parks for 100 ms: {parks:?}"
    );
    let plot = oneloop_trace::WIDTH - 8.0 - 116.0;
    assert!((parks[0] - plot / 50.0).abs() < 0.2, "{parks:?}");
}
