//! The elastic x axis of the timelines.
//!
//! Width is proportional to time, plus a fixed width per handle: in virtual time most
//! handles take no time at all, and a purely proportional axis would draw them as
//! nothing. The fixed part is at most a third of the plot (less when there are many
//! handles), the rest is shared out by time. When nothing took time (an order-only
//! figure), every handle gets the same width and a turn that waited gets a fixed box.

use std::time::Duration;

use crate::{SvgOptions, Turn};

/// The width of every figure (the book's content width).
pub const WIDTH: f64 = 750.0;
/// The left column, where lane names go.
pub(crate) const GUTTER: f64 = 112.0;
/// Where the plot begins and ends on the x axis.
pub(crate) const PLOT_LEFT: f64 = GUTTER + 4.0;
pub(crate) const PLOT_RIGHT: f64 = WIDTH - 8.0;

/// Where one turn's parts go on the x axis.
pub(crate) struct Placed {
    /// The column's left edge.
    pub(crate) left: f64,
    /// Where the park's box begins.
    pub(crate) park_x: f64,
    /// The park's width (zero: the turn did not wait).
    pub(crate) park: f64,
    /// Each handle's x and width, in order.
    pub(crate) handles: Vec<(f64, f64)>,
    /// The column's right edge.
    pub(crate) right: f64,
}

// ANCHOR: layout
/// The elastic x axis: a fixed width per handle, the rest shared out by time.
pub(crate) fn layout(turns: &[Turn], options: &SvgOptions) -> Vec<Placed> {
    let plot = PLOT_RIGHT - PLOT_LEFT;
    let count = turns.len().max(1) as f64;
    let pad = (plot * 0.06 / (2.0 * count)).min(2.0);
    let handles: usize = turns.iter().map(|turn| turn.handles.len()).sum();
    let empty: usize = turns.iter().filter(|turn| turn.handles.is_empty()).count();
    let empty_width = if options.durations { 0.0 } else { 22.0 };
    let wait_width = if options.durations { 0.0 } else { 14.0 };
    let waits = turns.iter().filter(|turn| waited(turn)).count();
    let span = |turn: &Turn| {
        let parked = if options.durations {
            turn.parked
        } else {
            Duration::ZERO
        };
        let ran: Duration = if options.durations {
            turn.handles.iter().map(crate::Span::duration).sum()
        } else {
            Duration::ZERO
        };
        (parked, ran)
    };
    let total: f64 = turns
        .iter()
        .map(|turn| {
            let (parked, ran) = span(turn);
            (parked + ran).as_secs_f64()
        })
        .sum();
    let avail = plot
        - 2.0 * pad * count
        - empty as f64 * empty_width
        - if options.durations {
            0.0
        } else {
            waits as f64 * wait_width
        };
    let per_handle = if handles == 0 {
        0.0
    } else if total == 0.0 {
        avail / handles as f64
    } else {
        (avail * 0.3 / handles as f64).clamp(0.8, 10.0)
    };
    let scale = if total == 0.0 {
        0.0
    } else {
        (avail - per_handle * handles as f64) / total
    };
    let mut x = PLOT_LEFT;
    let mut placed = Vec::with_capacity(turns.len());
    for turn in turns {
        let left = x;
        x += pad;
        let park = if options.durations {
            turn.parked.as_secs_f64() * scale
        } else if waited(turn) {
            wait_width
        } else {
            0.0
        };
        x += park;
        let mut spans = Vec::with_capacity(turn.handles.len());
        for handle in &turn.handles {
            let ran = if options.durations {
                handle.duration().as_secs_f64()
            } else {
                0.0
            };
            let width = per_handle + ran * scale;
            spans.push((x, width));
            x += width;
        }
        if turn.handles.is_empty() {
            x += empty_width;
        }
        x += pad;
        placed.push(Placed {
            left,
            park_x: left + pad,
            park,
            handles: spans,
            right: x,
        });
    }
    placed
}
// ANCHOR_END: layout

/// Whether the loop waited in this turn (asked for a non-zero timeout, or none).
pub(crate) fn waited(turn: &Turn) -> bool {
    turn.timeout != Some(Duration::ZERO)
}
