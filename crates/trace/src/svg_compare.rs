//! Two or more runs drawn one above the other on one linear time axis.
//!
//! A timeline's x axis is elastic, so two timelines side by side are not on the same
//! scale. Here every run shares one axis, proportional to time and long enough for the
//! longest run, and each run is two rows: what the driver parked, and every handle
//! (all tasks in one row, in the lane's colour). A handle that ran at least 100 ms is
//! cross-hatched, as in the timelines. So the lengths of the runs compare at a glance.

use std::fmt::Write as _;
use std::time::Duration;

use crate::Trace;
use crate::layout::{PLOT_LEFT, PLOT_RIGHT};
use crate::svg::{lane_colour, open_figure};
use crate::svg_text::{escape, human, n, trim};

const ROW_H: f64 = 22.0;
const BAR_H: f64 = 14.0;
const TOP: f64 = 52.0;
/// A handle is drawn at least this wide, so one that took no time is still seen.
const MIN_W: f64 = 1.2;

/// Draws `runs` (a name and a recording each) one above the other on one time axis.
pub fn render_comparison(title: &str, subtitle: &str, runs: &[(&str, &Trace)]) -> String {
    let end = runs
        .iter()
        .map(|(_, trace)| trace.end())
        .max()
        .unwrap_or(Duration::ZERO)
        .max(Duration::from_millis(1));
    let scale = (PLOT_RIGHT - PLOT_LEFT) / end.as_secs_f64();
    let x = |t: Duration| PLOT_LEFT + t.as_secs_f64() * scale;
    let panel_h = 2.0 * ROW_H + 30.0;
    let axis_y = TOP + panel_h * runs.len() as f64 + 4.0;
    let height = axis_y + 46.0;
    let mut svg = open_figure(height, 12.0, title);
    let _ = writeln!(
        svg,
        r##"<text x="4" y="36" font-size="12" fill="#333333">{}</text>"##,
        escape(subtitle)
    );
    for (index, (name, trace)) in runs.iter().enumerate() {
        let top = TOP + panel_h * index as f64;
        let lanes = trace.lanes();
        let _ = writeln!(
            svg,
            r#"<text x="4" y="{}" font-weight="bold">{}</text>"#,
            n(top + 14.0),
            escape(&format!(
                "{name}: {} turns, ends at {}",
                trace.turns.len(),
                human(trace.end())
            ))
        );
        let rows = top + 22.0;
        for (row, label) in ["parked", "handles"].iter().enumerate() {
            let y = rows + ROW_H * row as f64;
            let _ = writeln!(
                svg,
                r##"<text x="8" y="{}" font-size="11">{label}</text><line x1="4" y1="{}" x2="{}" y2="{}" stroke="#D0D0D0" stroke-width="0.5"/>"##,
                n(y + 15.0),
                n(y + ROW_H),
                n(PLOT_RIGHT),
                n(y + ROW_H)
            );
        }
        let bar = |row: f64| rows + ROW_H * row + (ROW_H - BAR_H) / 2.0;
        svg.push_str("<g class=\"parked\">\n");
        for turn in &trace.turns {
            if turn.parked.is_zero() {
                continue;
            }
            let _ = writeln!(
                svg,
                r##"<rect x="{}" y="{}" width="{}" height="{}" fill="url(#parked)" stroke="#6E6E6E" stroke-width="0.6"><title>{}</title></rect>"##,
                n(x(turn.start)),
                n(bar(0.0)),
                n((x(turn.park_end()) - x(turn.start)).max(MIN_W)),
                n(BAR_H),
                escape(&format!(
                    "turn {}: parked {}",
                    turn.title,
                    human(turn.parked)
                ))
            );
        }
        svg.push_str("</g>\n<g class=\"handles\">\n");
        for (turn, span) in trace.spans() {
            let blocked = span.duration() >= Duration::from_millis(100);
            let width = (x(span.end) - x(span.start)).max(MIN_W);
            let _ = writeln!(
                svg,
                r##"<rect class="handle" x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#222222" stroke-width="{}"><title>{}</title></rect>"##,
                n(x(span.start)),
                n(bar(1.0)),
                n(width),
                n(BAR_H),
                lane_colour(&lanes, &span.lane),
                if blocked { "0.8" } else { "0" },
                escape(&format!(
                    "turn {}: {} ran {}",
                    turn.title,
                    span.label,
                    human(span.duration())
                ))
            );
            if blocked {
                let _ = writeln!(
                    svg,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="url(#blocked)"/>"#,
                    n(x(span.start)),
                    n(bar(1.0)),
                    n(width),
                    n(BAR_H)
                );
            }
        }
        svg.push_str("</g>\n");
    }
    // The shared axis: a tick per second, or per tenth when the runs are short.
    let step = if end >= Duration::from_secs(2) {
        1.0
    } else {
        0.1
    };
    let _ = writeln!(
        svg,
        r#"<text x="4" y="{}" font-size="11" font-weight="bold">time (s)</text>"#,
        n(axis_y + 12.0)
    );
    let mut tick = 0.0;
    while tick <= end.as_secs_f64() + 1e-9 {
        let at = PLOT_LEFT + tick * scale;
        let _ = writeln!(
            svg,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#8C8C8C" stroke-width="0.6"/><text x="{x}" y="{}" font-size="11" text-anchor="middle">{}</text>"##,
            n(TOP),
            n(axis_y),
            n(axis_y + 12.0),
            trim(format!("{tick:.1}")),
            x = n(at)
        );
        tick += step;
    }
    let _ = writeln!(
        svg,
        r##"<text x="4" y="{}" font-size="11" fill="#333333">one axis for both runs, proportional to time; cross-hatched: a handle that ran ≥ 100 ms</text>"##,
        n(axis_y + 34.0)
    );
    svg.push_str("</svg>\n");
    svg
}
