//! The capstone's recorded runs say what the book's stepper demos say.

use std::time::Duration;

use oneloop_testkit::watchdog;
use oneloop_trace::{Recording, record, scenario};

fn recorded(name: &'static str) -> Recording {
    watchdog(Duration::from_secs(10), move || {
        record(scenario(name).expect("a known scenario")).expect("the scenario runs")
    })
}

fn labels(recording: &Recording, index: usize) -> Vec<String> {
    recording.trace.turns[index]
        .handles
        .iter()
        .map(|span| span.label.clone())
        .collect()
}

#[test]
fn a_pipelined_request_is_read_run_and_answered_in_one_step_of_the_connection() {
    // The scenario itself checks that the client got +PONG, +OK and $1 v, in order.
    let recording = recorded("capstone_pipeline");
    let turns = &recording.trace.turns;
    // The connection task is the one the server's accept loop spawned in turn 2.
    assert_eq!(labels(&recording, 1), ["server"]);
    let connection = recording.held[1].1.ready[0].clone();
    let first = turns
        .iter()
        .position(|turn| turn.handles.iter().any(|span| span.label == connection))
        .expect("the connection runs");
    // The book's walk through the stepper names the turns: this is turn 3.
    assert_eq!(turns[first].number, 3, "the connection's first turn");
    // Beside it runs only the task `serve` spawned for the accept: the handler put
    // the stream into the server's group, so that task has nothing to do and ends.
    let handed_off = recording.held[1].1.ready[1].clone();
    assert_eq!(labels(&recording, first), [connection.clone(), handed_off]);
    // Its first step spawned the writer, and left the connection waiting to read.
    let writer = recording.held[first].1.ready.clone();
    assert_eq!(writer.len(), 1, "only the writer is queued: {writer:?}");
    // The next park reports two sockets: the client's, where the three replies have
    // arrived, and the server's, where the client's end of requests waits. The writer
    // had not run yet: the replies were sent by the connection's own step.
    let next = &turns[first + 1];
    assert_eq!(recording.held[first + 1].0.ready, writer);
    assert_eq!(next.io_events, 2);
    assert_eq!(
        labels(&recording, first + 1),
        [writer[0].clone(), "main".to_string(), connection]
    );
}

#[test]
fn a_key_with_a_deadline_is_deleted_by_its_own_timer_at_the_deadline() {
    // The scenario itself checks the GET at 50 ms finds the key and the one at 150 ms
    // does not, with the store counting one expiry before that read.
    let recording = recorded("capstone_expiry");
    let turns = &recording.trace.turns;
    // After SET, the key's timer sits in the heap beside main's sleep.
    assert_eq!(
        recording.held[0].1.timers,
        ["when=0.050 sleep", "when=0.100 expire key"]
    );
    let fired = turns
        .iter()
        .position(|turn| turn.handles.iter().any(|span| span.label == "expire key"))
        .expect("the key's timer fires");
    // A turn of its own: the park ends at 100 ms, one timer moved, one callback run.
    assert_eq!(labels(&recording, fired), ["expire key"]);
    assert_eq!(turns[fired].timers_moved, 1);
    assert_eq!(turns[fired].park_end(), Duration::from_millis(100));
    assert_eq!(recording.held[fired].1.timers, ["when=0.150 sleep"]);
}
