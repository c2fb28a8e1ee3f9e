//! Export to the Chrome trace-event format, which Perfetto and `chrome://tracing` open.
//!
//! The format is a JSON object with a `traceEvents` array. Each handle becomes a
//! *complete* event (`"ph": "X"`) with a start `ts` and a duration `dur`, both in
//! microseconds. A `tid` (a thread, in the viewer) is one lane: `turns`, `parked`,
//! `callbacks`, then one per task. Metadata events (`"ph": "M"`) name the lanes and
//! fix their order. The JSON is written by hand: the only subtle part is escaping
//! strings, which [`json_string`] does.

use std::fmt::Write as _;
use std::time::Duration;

use crate::{Lane, Trace};

/// The lane ids of the fixed lanes; task lanes follow from [`FIRST_TASK_TID`].
pub const TURNS_TID: u64 = 1;
/// The lane where parking is drawn.
pub const PARKED_TID: u64 = 2;
/// The first lane given to a lane of handles (callbacks, then each task).
pub const FIRST_TASK_TID: u64 = 3;

/// `text` as a JSON string literal, quotes included.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Microseconds with three decimals, from whole nanoseconds: no float rounding.
pub fn micros(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    format!("{}.{:03}", nanos / 1000, nanos % 1000)
}

// ANCHOR: chrome_json
/// The trace as Chrome trace-event JSON.
pub fn chrome_json(trace: &Trace, title: &str) -> String {
    let lanes = trace.lanes();
    let mut events: Vec<String> = Vec::new();
    events.push(format!(
        r#"{{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{{"name":{}}}}}"#,
        json_string(title)
    ));
    let mut names = vec![
        (TURNS_TID, "turns".to_string()),
        (PARKED_TID, "parked".to_string()),
    ];
    for (tid, lane) in (FIRST_TASK_TID..).zip(&lanes) {
        names.push((tid, lane.name.clone()));
    }
    for (tid, name) in &names {
        events.push(format!(
            r#"{{"name":"thread_name","ph":"M","pid":1,"tid":{tid},"args":{{"name":{}}}}}"#,
            json_string(name)
        ));
        events.push(format!(
            r#"{{"name":"thread_sort_index","ph":"M","pid":1,"tid":{tid},"args":{{"sort_index":{tid}}}}}"#
        ));
    }
    for turn in &trace.turns {
        let timeout = match turn.timeout {
            Some(timeout) => micros(timeout),
            None => "null".to_string(),
        };
        events.push(format!(
            r#"{{"name":{},"cat":"turn","ph":"X","pid":1,"tid":{TURNS_TID},"ts":{},"dur":{},"args":{{"turn":{},"handles":{}}}}}"#,
            json_string(&format!("turn {}", turn.title)),
            micros(turn.start),
            micros(turn.end.saturating_sub(turn.start)),
            turn.number,
            turn.handles.len()
        ));
        events.push(format!(
            r#"{{"name":"park","cat":"park","ph":"X","pid":1,"tid":{PARKED_TID},"ts":{},"dur":{},"args":{{"turn":{},"timeout_us":{timeout},"io_events":{},"timers_moved":{}}}}}"#,
            micros(turn.start),
            micros(turn.parked),
            turn.number,
            turn.io_events,
            turn.timers_moved
        ));
        for span in &turn.handles {
            let tid = tid_of(&lanes, &span.lane);
            events.push(format!(
                r#"{{"name":{},"cat":{},"ph":"X","pid":1,"tid":{tid},"ts":{},"dur":{},"args":{{"turn":{}}}}}"#,
                json_string(&span.label),
                json_string(span.kind),
                micros(span.start),
                micros(span.duration()),
                turn.number
            ));
        }
    }
    let mut out = String::from("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    out.push_str(&events.join(",\n"));
    out.push_str("\n]}\n");
    out
}
// ANCHOR_END: chrome_json

fn tid_of(lanes: &[crate::LaneInfo], lane: &Lane) -> u64 {
    let index = lanes
        .iter()
        .position(|known| known.lane == *lane)
        .expect("every span's lane is among the trace's lanes");
    FIRST_TASK_TID + index as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
    }

    #[test]
    fn micros_are_exact() {
        assert_eq!(micros(Duration::from_nanos(1_234_567)), "1234.567");
        assert_eq!(micros(Duration::ZERO), "0.000");
    }
}
