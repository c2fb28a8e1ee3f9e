//! The marks of a timeline: parks, handle bars, the axis under the columns, the legend.

use std::fmt::Write as _;

use crate::layout::PLOT_LEFT;
use crate::svg::{Frame, LANES_TOP, lane_colour};
use crate::svg_text::{escape, fit, human, n, text_width, trim};
use crate::{Bottom, WIDTH};

/// The driver's parks, in the first row.
pub(crate) fn parks(frame: &Frame<'_>, svg: &mut String) {
    let trace = frame.trace;
    let options = frame.options;
    let placed = &frame.placed;
    let lane_h = frame.lane_h;
    let bar_h = frame.bar_h;
    svg.push_str("<g class=\"parked\">\n");
    for (turn, place) in trace.turns.iter().zip(placed) {
        if place.park < 0.5 || !options.parked {
            continue;
        }
        let x = place.park_x;
        let top = LANES_TOP + (lane_h - bar_h) / 2.0;
        let what = if options.durations {
            format!("parked {}", human(turn.parked))
        } else {
            "waited".to_string()
        };
        let _ = writeln!(
            svg,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="url(#parked)" stroke="#6E6E6E" stroke-width="0.6"><title>{}</title></rect>"##,
            n(x),
            n(top),
            n(place.park),
            n(bar_h),
            escape(&format!("turn {}: {what}", turn.title))
        );
        let short = if options.durations {
            human(turn.parked)
        } else {
            what.clone()
        };
        if text_width(&short, 11.0) + 6.0 <= place.park {
            let _ = writeln!(
                svg,
                r##"<text x="{}" y="{}" font-size="11" text-anchor="middle" paint-order="stroke" stroke="#FFFFFF" stroke-width="3">{}</text>"##,
                n(x + place.park / 2.0),
                n(top + bar_h / 2.0 + 4.0),
                escape(&short)
            );
        }
    }
    svg.push_str("</g>\n");
}

/// Every handle, as a bar in its lane.
pub(crate) fn handles(frame: &Frame<'_>, svg: &mut String) {
    let trace = frame.trace;
    let options = frame.options;
    let lanes = &frame.lanes;
    let placed = &frame.placed;
    let first_row = frame.first_row;
    let lane_h = frame.lane_h;
    let bar_h = frame.bar_h;
    svg.push_str("<g class=\"handles\">\n");
    for (turn, place) in trace.turns.iter().zip(placed) {
        for (span, (x, width)) in turn.handles.iter().zip(&place.handles) {
            let row = first_row
                + lanes
                    .iter()
                    .position(|lane| lane.lane == span.lane)
                    .expect("every span's lane is listed");
            let top = LANES_TOP + row as f64 * lane_h + (lane_h - bar_h) / 2.0;
            let colour = lane_colour(lanes, &span.lane);
            let blocked = options.durations && span.duration() >= options.blocked;
            let tip = if options.durations {
                format!(
                    "turn {}: {} ({}) ran {}",
                    turn.title,
                    span.label,
                    span.kind,
                    human(span.duration())
                )
            } else {
                format!("turn {}: {} ({})", turn.title, span.label, span.kind)
            };
            // A hairline bar shows its colour better with no outline.
            let stroke = if blocked {
                "1.6"
            } else if *width < 2.5 {
                "0"
            } else {
                "0.5"
            };
            let _ = writeln!(
                svg,
                r##"<rect class="handle" x="{}" y="{}" width="{}" height="{}" fill="{colour}" stroke="#000000" stroke-width="{stroke}"><title>{}</title></rect>"##,
                n(*x),
                n(top),
                // Drawn at least 1.5 px wide, so a handle that took no time still shows.
                n(width.max(1.5)),
                n(bar_h),
                escape(&tip)
            );
            if blocked {
                let _ = writeln!(
                    svg,
                    r##"<rect class="blocked" x="{}" y="{}" width="{}" height="{}" fill="url(#blocked)"/>"##,
                    n(*x),
                    n(top),
                    n(*width),
                    n(bar_h)
                );
                let long = format!("blocked {}", human(span.duration()));
                let short = human(span.duration());
                let text = [long, short]
                    .into_iter()
                    .find(|text| text_width(text, 11.0) + 6.0 <= *width);
                if let Some(text) = text {
                    let _ = writeln!(
                        svg,
                        r##"<text x="{}" y="{}" font-size="11" font-weight="bold" text-anchor="middle" paint-order="stroke" stroke="#FFFFFF" stroke-width="3">{}</text>"##,
                        n(x + width / 2.0),
                        n(top + bar_h / 2.0 + 4.0),
                        escape(&text)
                    );
                }
            } else if text_width(&span.label, 11.0) + 6.0 <= *width {
                let _ = writeln!(
                    svg,
                    r##"<text x="{}" y="{}" font-size="11" text-anchor="middle" paint-order="stroke" stroke="#FFFFFF" stroke-width="3">{}</text>"##,
                    n(x + width / 2.0),
                    n(top + bar_h / 2.0 + 4.0),
                    escape(&span.label)
                );
            }
        }
    }
    svg.push_str("</g>\n");
}

/// Under the columns: the times turns began, or group labels.
pub(crate) fn axis(frame: &Frame<'_>, svg: &mut String) {
    let trace = frame.trace;
    let options = frame.options;
    let placed = &frame.placed;
    let lanes_bottom = frame.lanes_bottom;
    let bottom_y = frame.bottom_y;
    svg.push_str("<g class=\"axis\">\n");
    match &options.bottom {
        Bottom::Time => {
            let _ = writeln!(
                svg,
                r#"<text x="4" y="{}" font-size="11" font-weight="bold">time (s)</text>"#,
                n(bottom_y)
            );
            let mut last_end = f64::MIN;
            let mut last_text = String::new();
            for (turn, place) in trace.turns.iter().zip(placed) {
                let label = trim(format!("{:.3}", turn.start.as_secs_f64()));
                if label == last_text {
                    continue;
                }
                let half = text_width(&label, 11.0) / 2.0;
                let x = place.left.max(PLOT_LEFT + half);
                if x - half < last_end + 6.0 {
                    continue;
                }
                let _ = writeln!(
                    svg,
                    r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444444" stroke-width="0.8"/>"##,
                    n(place.left),
                    n(lanes_bottom),
                    n(place.left),
                    n(lanes_bottom + 4.0)
                );
                let _ = writeln!(
                    svg,
                    r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
                    n(x),
                    n(bottom_y),
                    escape(&label)
                );
                last_end = x + half;
                last_text = label;
            }
        }
        Bottom::Groups(groups) => {
            for (first, last, text) in groups {
                let (Some(a), Some(b)) = (placed.get(*first), placed.get(*last)) else {
                    continue;
                };
                let _ = writeln!(
                    svg,
                    r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444444" stroke-width="1"/>"##,
                    n(a.left + 1.0),
                    n(lanes_bottom + 4.0),
                    n(b.right - 1.0),
                    n(lanes_bottom + 4.0)
                );
                let _ = writeln!(
                    svg,
                    r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
                    n((a.left + b.right) / 2.0),
                    n(bottom_y + 2.0),
                    escape(&fit(text, b.right - a.left, 11.0))
                );
            }
        }
        Bottom::Nothing => {}
    }
    svg.push_str("</g>\n");
}

/// The legend: parked, blocked, what a column is.
pub(crate) fn legend(frame: &Frame<'_>, svg: &mut String) {
    let options = frame.options;
    let legend_y = frame.legend_y;
    svg.push_str("<g class=\"legend\">\n");
    let mut x = 4.0;
    if options.parked {
        let _ = writeln!(
            svg,
            r##"<rect x="4" y="{}" width="16" height="10" fill="url(#parked)" stroke="#6E6E6E" stroke-width="0.6"/>"##,
            n(legend_y - 9.0)
        );
        let parked_text = if options.durations {
            "parked: the driver waits (clock or epoll)"
        } else {
            "waited: the driver was asked to wait"
        };
        let _ = writeln!(
            svg,
            r#"<text x="24" y="{}" font-size="11">{parked_text}</text>"#,
            n(legend_y)
        );
        x = 24.0 + text_width(parked_text, 11.0) + 16.0;
    }
    if options.durations {
        let _ = writeln!(
            svg,
            r##"<rect x="{}" y="{}" width="16" height="10" fill="url(#blocked)" stroke="#000000" stroke-width="1.6"/>"##,
            n(x),
            n(legend_y - 9.0)
        );
        let text = format!("ran ≥ {}: blocked the loop", human(options.blocked));
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="11">{}</text>"#,
            n(x + 20.0),
            n(legend_y),
            escape(&text)
        );
        x += 20.0 + text_width(&text, 11.0) + 16.0;
    }
    let columns = if options.durations {
        format!("one column per {}; width ∝ time", options.column)
    } else {
        format!("one column per {}; order only", options.column)
    };
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="{}" font-size="11" fill="#333333">{}</text>"##,
        n(x.min(WIDTH - text_width(&columns, 11.0) - 4.0)),
        n(legend_y),
        escape(&columns)
    );
    svg.push_str("</g>\n");
}
