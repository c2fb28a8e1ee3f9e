//! The drawing primitives of the diagrams: boxes, arrows and labels.
//!
//! A diagram is not a timeline: it has no turns and no lanes. It is boxes joined by
//! arrows, placed by the function that draws it. Every number goes through
//! [`n`](crate::svg_text) as in the timelines, so a diagram drawn from the same run is
//! the same bytes.

use std::fmt::Write as _;

use crate::svg_text::{escape, n, text_width};

const FONT: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

/// The ink of arrows and borders.
pub(crate) const INK: &str = "#222222";
/// The colour of a wake (an arrow going back up to the executor).
pub(crate) const WAKE: &str = "#D55E00";

/// A diagram being drawn.
pub(crate) struct Canvas {
    svg: String,
}

impl Canvas {
    /// A document `width` × `height` with a heading and a one-line note.
    pub(crate) fn new(width: f64, height: f64, title: &str, note: &str) -> Self {
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="diagram" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT}" font-size="12.0">"#,
            w = n(width),
            h = n(height)
        );
        for (id, colour) in [("ink", INK), ("wake", WAKE)] {
            let _ = writeln!(
                svg,
                r#"<defs><marker id="head-{id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker></defs>"#
            );
        }
        let _ = writeln!(
            svg,
            r##"<rect x="0" y="0" width="{}" height="{}" fill="#FFFFFF"/>"##,
            n(width),
            n(height)
        );
        let _ = writeln!(
            svg,
            r#"<text x="4" y="18" font-size="14" font-weight="bold">{}</text>"#,
            escape(title)
        );
        let _ = writeln!(
            svg,
            r##"<text x="4" y="36" font-size="12" fill="#333333">{}</text>"##,
            escape(note)
        );
        Canvas { svg }
    }

    /// A box with a bold title and lines of text under it, top-left at (`x`, `y`).
    pub(crate) fn node(
        &mut self,
        (x, y, w, h): (f64, f64, f64, f64),
        title: &str,
        lines: &[String],
        fill: &str,
    ) {
        let _ = writeln!(
            self.svg,
            r#"<g class="node"><rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{fill}" stroke="{INK}" stroke-width="1.2"/>"#,
            n(x),
            n(y),
            n(w),
            n(h)
        );
        let _ = writeln!(
            self.svg,
            r#"<text x="{}" y="{}" font-weight="bold" text-anchor="middle">{}</text>"#,
            n(x + w / 2.0),
            n(y + 17.0),
            escape(title)
        );
        for (row, line) in lines.iter().enumerate() {
            let _ = writeln!(
                self.svg,
                r#"<text x="{}" y="{}" font-size="11" font-family="DejaVu Sans Mono, monospace">{}</text>"#,
                n(x + 8.0),
                n(y + 35.0 + 14.0 * row as f64),
                escape(line)
            );
        }
        self.svg.push_str("</g>\n");
    }

    /// Text at (`x`, `y`), anchored `anchor` (`start`, `middle`, `end`).
    pub(crate) fn text(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = writeln!(
            self.svg,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="{anchor}">{}</text>"#,
            n(x),
            n(y),
            n(size),
            escape(text)
        );
    }

    /// Text on a white backing, so it reads over lines.
    pub(crate) fn label(&mut self, x: f64, y: f64, text: &str, colour: &str) {
        let width = text_width(text, 11.0) + 6.0;
        let _ = writeln!(
            self.svg,
            r##"<rect x="{}" y="{}" width="{}" height="14" fill="#FFFFFF" opacity="0.9"/><text x="{}" y="{}" font-size="11" text-anchor="middle" fill="{colour}">{}</text>"##,
            n(x - width / 2.0),
            n(y - 11.0),
            n(width),
            n(x),
            n(y),
            escape(text)
        );
    }

    /// A path (SVG `d`) with an arrowhead at its end; `wake` draws it in the wake's
    /// colour, dashed.
    pub(crate) fn arrow(&mut self, d: &str, wake: bool) {
        let (colour, id, dash) = if wake {
            (WAKE, "wake", r#" stroke-dasharray="6 3""#)
        } else {
            (INK, "ink", "")
        };
        let _ = writeln!(
            self.svg,
            r#"<path class="edge" d="{d}" fill="none" stroke="{colour}" stroke-width="1.4"{dash} marker-end="url(#head-{id})"/>"#
        );
    }

    /// A thin dashed vertical line (a lifeline).
    pub(crate) fn lifeline(&mut self, x: f64, top: f64, bottom: f64) {
        let _ = writeln!(
            self.svg,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#8C8C8C" stroke-width="1" stroke-dasharray="3 3"/>"##,
            n(top),
            n(bottom),
            x = n(x)
        );
    }

    /// The finished document.
    pub(crate) fn finish(mut self) -> String {
        self.svg.push_str("</svg>\n");
        self.svg
    }
}

/// `M x1,y1 L x2,y2`: a straight path.
pub(crate) fn line(x1: f64, y1: f64, x2: f64, y2: f64) -> String {
    format!("M{},{} L{},{}", n(x1), n(y1), n(x2), n(y2))
}
