//! Reading a recording back in tests: the JSON of a `.js` file, and the turn structure
//! that stays the same from run to run on a real clock. Shared by `crates/trace`'s
//! tests and the root suite `tests/figures.rs` (through `#[path]`).

use oneloop_trace::recording_json;
use serde_json::Value as Json;

/// A recording's JSON, read from its `.js` file.
pub fn parse_recording_js(text: &str) -> Result<Json, String> {
    let body = recording_json(text)?;
    serde_json::from_str(body).map_err(|e| format!("JSON: {e}"))
}

/// A recording reduced to what stays the same from run to run on a real clock: per
/// turn, the handles it ran, in order, as `lane key: label`.
pub fn turn_structure(recording: &Json) -> Result<Vec<Vec<String>>, String> {
    let lanes = recording["lanes"].as_array().ok_or("no lanes")?;
    let turns = recording["turns"].as_array().ok_or("no turns")?;
    turns
        .iter()
        .map(|turn| {
            let handles = turn["handles"]
                .as_array()
                .ok_or("a turn with no handles list")?;
            handles
                .iter()
                .map(|handle| {
                    let label = handle["label"].as_str().ok_or("a handle with no label")?;
                    let lane = handle["lane"].as_u64().ok_or("a handle with no lane")?;
                    let key = usize::try_from(lane)
                        .ok()
                        .and_then(|lane| lanes.get(lane))
                        .and_then(|lane| lane["key"].as_str())
                        .ok_or_else(|| format!("no lane {lane}"))?;
                    Ok(format!("{key}: {label}"))
                })
                .collect()
        })
        .collect()
}
