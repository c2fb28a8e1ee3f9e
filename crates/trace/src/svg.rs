//! Drawing a trace as an SVG timeline, by hand.
//!
//! - **Columns are turns.** Each turn is a vertical band (shaded every other turn),
//!   its number on the axis at the top. Inside a band the driver's park comes first,
//!   then the handles in the order they ran.
//! - **Rows are lanes.** `parked` (hatched grey: the driver waiting), `callbacks`
//!   (handles of no task), then one row per task, in its own colour from the
//!   Okabe–Ito palette, which stays distinguishable with the common colour-vision
//!   deficiencies; the lane's name is written beside it, so colour is never the only
//!   cue.
//! - **The x axis is elastic.** Width is proportional to time, plus a small fixed
//!   width per handle, so a handle that took no time (virtual time makes many) is
//!   still seen. The times at the bottom mark where turns begin.
//! - **Blocking is marked.** A handle that ran at least the threshold (asyncio's
//!   `slow_callback_duration`, 100 ms) is cross-hatched and labelled "blocked".
//!
//! The output depends only on the trace: lanes come in first-seen order and every
//! number is printed with one decimal, so a virtual-time figure is byte-for-byte the
//! same on every run.

use std::fmt::Write as _;
use std::time::Duration;

use crate::layout::{GUTTER, PLOT_LEFT, PLOT_RIGHT, Placed, layout};
use crate::svg_marks::{axis, handles, legend, parks};
use crate::svg_text::{escape, fit, n, text_width};
use crate::{Lane, LaneInfo, Trace, WIDTH};

/// The Okabe–Ito palette, without black (kept for callbacks): a colour per task lane.
pub const PALETTE: [&str; 7] = [
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
];

/// The colour of the callbacks lane.
pub const CALLBACK_COLOUR: &str = "#4D4D4D";

/// What to write under the columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bottom {
    /// The time at which each turn began (when it changes).
    Time,
    /// Labels spanning groups of columns: `(first turn index, last turn index, text)`.
    Groups(Vec<(usize, usize, String)>),
    /// Nothing.
    Nothing,
}

/// How to draw a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SvgOptions {
    /// The heading of the figure.
    pub title: String,
    /// One line under the heading: what the figure is and which clock.
    pub subtitle: String,
    /// A handle that ran at least this long is marked as blocking.
    pub blocked: Duration,
    /// `false`: draw order only, every handle the same width (for real-clock runs,
    /// whose durations differ every time).
    pub durations: bool,
    /// What a column is called ("turn", "phase").
    pub column: String,
    /// What goes under the columns.
    pub bottom: Bottom,
    /// Whether to draw the `parked` lane.
    pub parked: bool,
    /// Rows for the column headings (2 staggers them, for narrow columns with names).
    pub header_rows: usize,
}

impl SvgOptions {
    /// Options for a virtual-time asyncio trace: durations drawn, times at the bottom.
    pub fn timeline(title: impl Into<String>, subtitle: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            subtitle: subtitle.into(),
            blocked: Duration::from_millis(100),
            durations: true,
            column: "turn".to_string(),
            bottom: Bottom::Time,
            parked: true,
            header_rows: 1,
        }
    }
}

const HEADER_Y: f64 = 60.0;
pub(crate) const LANES_TOP: f64 = 68.0;
const FONT: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

pub(crate) fn lane_colour(lanes: &[LaneInfo], lane: &Lane) -> &'static str {
    let mut task_index = 0;
    for known in lanes {
        if known.lane == Lane::Callbacks {
            if *lane == Lane::Callbacks {
                return CALLBACK_COLOUR;
            }
            continue;
        }
        if known.lane == *lane {
            return PALETTE[task_index % PALETTE.len()];
        }
        task_index += 1;
    }
    CALLBACK_COLOUR
}

/// A figure being drawn: the trace, its lanes and layout, and the geometry of rows.
pub(crate) struct Frame<'t> {
    pub(crate) trace: &'t Trace,
    pub(crate) options: &'t SvgOptions,
    pub(crate) lanes: Vec<LaneInfo>,
    pub(crate) placed: Vec<Placed>,
    /// 1 when the `parked` row is drawn first, else 0.
    pub(crate) first_row: usize,
    pub(crate) lane_h: f64,
    pub(crate) bar_h: f64,
    pub(crate) font: f64,
    pub(crate) lanes_bottom: f64,
    pub(crate) bottom_y: f64,
    pub(crate) legend_y: f64,
}

/// The vertical measures of a drawing, which depend only on how many rows it has.
struct Measures {
    first_row: usize,
    lane_h: f64,
    bar_h: f64,
    font: f64,
    lanes_bottom: f64,
    bottom_y: f64,
    legend_y: f64,
    height: f64,
}

fn measures(lanes: usize, options: &SvgOptions) -> Measures {
    let first_row = usize::from(options.parked);
    let rows = lanes + first_row;
    let (lane_h, bar_h, font) = if rows <= 14 {
        (24.0, 16.0, 12.0)
    } else {
        (13.0, 9.0, 11.0)
    };
    let lanes_bottom = LANES_TOP + rows as f64 * lane_h;
    let bottom_y = lanes_bottom + 16.0;
    let legend_y = bottom_y + 24.0;
    Measures {
        first_row,
        lane_h,
        bar_h,
        font,
        lanes_bottom,
        bottom_y,
        legend_y,
        height: legend_y + 12.0,
    }
}

/// The width and height of the document [`render_svg`] draws for `trace`.
pub(crate) fn svg_size(trace: &Trace, options: &SvgOptions) -> (f64, f64) {
    (WIDTH, measures(trace.lanes().len(), options).height)
}

// ANCHOR: render_svg
/// Draws `trace` as an SVG document (750 px wide).
pub fn render_svg(trace: &Trace, options: &SvgOptions) -> String {
    let lanes = trace.lanes();
    let Measures {
        first_row,
        lane_h,
        bar_h,
        font,
        lanes_bottom,
        bottom_y,
        legend_y,
        height,
    } = measures(lanes.len(), options);
    let placed = layout(&trace.turns, options);
    let frame = Frame {
        trace,
        options,
        lanes,
        placed,
        first_row,
        lane_h,
        bar_h,
        font,
        lanes_bottom,
        bottom_y,
        legend_y,
    };
    let mut svg = open_figure(height, font, &options.title);
    let _ = writeln!(
        svg,
        r##"<text x="4" y="36" font-size="12" fill="#333333">{}</text>"##,
        escape(&fit(&options.subtitle, WIDTH - 8.0, 12.0))
    );
    for part in [columns, lane_names, parks, handles, axis, legend] {
        part(&frame, &mut svg);
    }
    svg.push_str("</svg>\n");
    svg
}

/// The start of every figure: the `<svg>` element, the two hatchings (parked,
/// blocked), the white background and the bold title. The caller writes the rest and
/// closes the element.
pub(crate) fn open_figure(height: f64, font: f64, title: &str) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT}" font-size="{font}">"#,
        w = n(WIDTH),
        h = n(height),
        font = n(font)
    );
    svg.push_str(concat!(
        "<defs>\n",
        r##"<pattern id="parked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#E8E8E8"/><line x1="0" y1="0" x2="0" y2="6" stroke="#8C8C8C" stroke-width="2"/></pattern>"##,
        "\n",
        r##"<pattern id="blocked" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><line x1="0" y1="0" x2="0" y2="5" stroke="#000000" stroke-width="1.4"/></pattern>"##,
        "\n</defs>\n",
    ));
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{}" height="{}" fill="#FFFFFF"/>"##,
        n(WIDTH),
        n(height)
    );
    let _ = writeln!(
        svg,
        r#"<text x="4" y="18" font-size="14" font-weight="bold">{}</text>"#,
        escape(title)
    );
    svg
}
// ANCHOR_END: render_svg

/// Columns: a band per turn, every other one shaded, and its title on top.
fn columns(frame: &Frame<'_>, svg: &mut String) {
    let trace = frame.trace;
    let options = frame.options;
    let placed = &frame.placed;
    let lanes_bottom = frame.lanes_bottom;
    svg.push_str("<g class=\"columns\">\n");
    let _ = writeln!(
        svg,
        r#"<text x="4" y="{}" font-size="11" font-weight="bold">{}</text>"#,
        n(HEADER_Y),
        escape(&options.column)
    );
    let rows = options.header_rows.clamp(1, 2);
    let mut last_label = vec![f64::MIN; rows];
    // Shading every other column only helps while columns are wide enough to see.
    let shade = (PLOT_RIGHT - PLOT_LEFT) / (trace.turns.len().max(1) as f64) >= 4.0;
    let every = label_step(trace);
    for (index, (turn, place)) in trace.turns.iter().zip(placed).enumerate() {
        if shade && index % 2 == 1 {
            let _ = writeln!(
                svg,
                r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#F0F0F0"/>"##,
                n(place.left),
                n(LANES_TOP),
                n(place.right - place.left),
                n(lanes_bottom - LANES_TOP)
            );
        }
        if index > 0 && every > 1 && turn.number % every != 0 {
            continue;
        }
        let centre = (place.left + place.right) / 2.0;
        if every > 1 {
            // A tick marks which column a sparse label belongs to.
            let _ = writeln!(
                svg,
                r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#333333" stroke-width="0.8"/>"##,
                n(HEADER_Y + 2.0),
                n(LANES_TOP),
                x = n(centre)
            );
        }
        let half = text_width(&turn.title, 11.0) / 2.0;
        let free = (0..rows).find(|row| centre - half >= last_label[*row] + 4.0);
        if let Some(row) = free.filter(|_| centre + half <= WIDTH) {
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
                n(centre),
                n(HEADER_Y - 12.0 * row as f64),
                escape(&turn.title)
            );
            last_label[row] = centre + half;
        }
    }
    svg.push_str("</g>\n");
}

/// Which turn numbers get a label: every one while they fit, else every 2nd, 5th, 10th,
/// 20th, 50th… turn, so that a long run reads as a ruler, not a dense strip. Columns
/// titled by name (Node's phases) are always all labelled.
fn label_step(trace: &Trace) -> u64 {
    if trace
        .turns
        .iter()
        .any(|turn| turn.title.parse::<u64>().is_err())
    {
        return 1;
    }
    let widest = trace
        .turns
        .iter()
        .map(|turn| text_width(&turn.title, 11.0) + 6.0)
        .fold(0.0, f64::max);
    // Labels may take at most half of the axis.
    let room = (PLOT_RIGHT - PLOT_LEFT) / 2.0;
    let wanted = trace.turns.len() as f64 * widest / room;
    [1, 2, 5, 10, 20, 50, 100, 200, 500]
        .into_iter()
        .find(|step| *step as f64 >= wanted)
        .unwrap_or(1000)
}

/// Lane names, each with a swatch of the lane's colour.
fn lane_names(frame: &Frame<'_>, svg: &mut String) {
    let options = frame.options;
    let lanes = &frame.lanes;
    let lane_h = frame.lane_h;
    let bar_h = frame.bar_h;
    let font = frame.font;
    svg.push_str("<g class=\"lanes\">\n");
    let parked_row = options
        .parked
        .then(|| ("parked".to_string(), "url(#parked)"));
    let names = parked_row.into_iter().chain(
        lanes
            .iter()
            .map(|lane| (lane.name.clone(), lane_colour(lanes, &lane.lane))),
    );
    for (row, (name, colour)) in names.enumerate() {
        let top = LANES_TOP + row as f64 * lane_h;
        let _ = writeln!(
            svg,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#D0D0D0" stroke-width="0.5"/>"##,
            n(4.0),
            n(top + lane_h),
            n(PLOT_RIGHT),
            n(top + lane_h)
        );
        let swatch = (font - 2.0).min(bar_h);
        let _ = writeln!(
            svg,
            r##"<rect x="4" y="{}" width="{}" height="{}" fill="{colour}" stroke="#222222" stroke-width="0.5"/>"##,
            n(top + (lane_h - swatch) / 2.0),
            n(swatch),
            n(swatch)
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}">{}</text>"#,
            n(8.0 + swatch),
            n(top + lane_h / 2.0 + font * 0.35),
            escape(&fit(&name, GUTTER - 12.0 - swatch, font))
        );
    }
    svg.push_str("</g>\n");
}
