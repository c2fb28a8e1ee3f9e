//! CPython's column: a truth scenario's script run on python3, matched turn by turn.

use oneloop_testkit::watchdog_default;
use oneloop_trace::cpython::{match_turns, pair};
use oneloop_trace::{record, scenario};

#[test]
fn gathers_done_callbacks_are_marked_and_their_turn_has_no_oneloop_turn() {
    watchdog_default(|| {
        let recording = record(scenario("gather_three_children").expect("known")).expect("runs");
        let run = recording
            .cpython
            .expect("gather_three_children is a truth scenario");
        let matched: Vec<Option<usize>> = run.turns.iter().map(|turn| turn.oneloop_turn).collect();
        // CPython's turn 4 runs only gather's done callbacks; turn 6 is the stop callback.
        assert_eq!(matched, [Some(1), Some(2), Some(3), None, Some(4), None]);
        let fourth = &run.turns[3];
        assert_eq!(fourth.handles.len(), 3);
        assert!(
            fourth
                .handles
                .iter()
                .all(|handle| handle.name == "_done_callback"
                    && handle.removed_by == Some("gather's done-callback hop"))
        );
        assert!(
            run.turns[4]
                .handles
                .iter()
                .all(|handle| handle.removed_by.is_none())
        );
    });
}

#[test]
fn a_cpython_trace_of_another_program_is_refused() {
    watchdog_default(|| {
        let recording = record(scenario("gather_three_children").expect("known")).expect("runs");
        let pair = pair("gather_three_children").expect("paired");
        let trace = [
            "turn=1 run=main",
            "turn=2 run=task",
            "turn=2 run=task",
            "turn=2 run=task",
            "turn=3 run=task",
            "turn=3 run=task",
            "turn=4 run=_done_callback",
            "turn=5 run=main",
        ]
        .map(String::from);
        let error = match_turns(pair, &trace, &recording.trace).expect_err("turn 3 differs");
        assert!(error.contains("turn 3"), "{error}");
        // Without the declared difference set aside, the turns do not line up either.
        let mut bare = *pair;
        bare.differs = &[];
        let fresh = recording.cpython.expect("paired");
        let lines: Vec<String> = fresh
            .turns
            .iter()
            .flat_map(|turn| {
                turn.handles
                    .iter()
                    .map(move |handle| format!("turn={} run={}", turn.number, handle.name))
            })
            .collect();
        let bare: &'static _ = Box::leak(Box::new(bare));
        assert!(match_turns(bare, &lines, &recording.trace).is_err());
        assert!(match_turns(pair, &lines, &recording.trace).is_ok());
    });
}
