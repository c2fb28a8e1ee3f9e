//! The small text helpers of the SVG writer: numbers, escaping, widths, durations.
//!
//! Every number in a figure goes through [`n`], which prints one decimal, so the same
//! trace always gives the same bytes (no float printed in full, no `-0.0`).

use std::time::Duration;

/// A number for the SVG: one decimal, never `-0.0`.
pub(crate) fn n(value: f64) -> String {
    let text = format!("{:.1}", value.max(0.0));
    if text == "-0.0" {
        "0.0".to_string()
    } else {
        text
    }
}

/// Escapes text for an XML text node or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Roughly how wide `text` is at `size` px (the drawing skips labels that would collide).
pub(crate) fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// A duration for a label: "350 ms", "1.5 s", "0.2 ms".
pub fn human(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if duration.is_zero() {
        "0".to_string()
    } else if ms >= 1000.0 {
        trim(format!("{:.3}", ms / 1000.0)) + " s"
    } else if ms >= 1.0 {
        trim(format!("{ms:.1}")) + " ms"
    } else {
        trim(format!("{:.1}", ms * 1000.0)) + " µs"
    }
}

pub(crate) fn trim(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Fits `text` into `width` px at `size`, cutting it with an ellipsis.
pub(crate) fn fit(text: &str, width: f64, size: f64) -> String {
    if text_width(text, size) <= width {
        return text.to_string();
    }
    let keep = ((width / (size * 0.6)) as usize).saturating_sub(1);
    let cut: String = text.chars().take(keep).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_have_one_decimal_and_no_negative_zero() {
        assert_eq!(n(1.25), "1.2");
        assert_eq!(n(-0.01), "0.0");
        assert_eq!(n(750.0), "750.0");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(Duration::ZERO), "0");
        assert_eq!(human(Duration::from_millis(350)), "350 ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(human(Duration::from_micros(250)), "250 µs");
    }

    #[test]
    fn text_is_escaped_and_fitted() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(fit("callbacks", 1000.0, 11.0), "callbacks");
        assert_eq!(fit("a long lane name", 40.0, 10.0), "a lon…");
    }
}
