//! Reading `book/src/SUMMARY.md` the way mdBook numbers it.
//!
//! Prefix chapters (links before the first list item) and suffix chapters (after the
//! numbered list) get no number. Numbered chapters count 1, 2, …; an item nested under
//! chapter N counts N.1, N.2, … A `---` separator and `# Part` titles get no number.

/// One link in the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryItem {
    /// The link text.
    pub title: String,
    /// The linked file relative to `book/src/` (None for a draft chapter `[x]()`).
    pub path: Option<String>,
    /// The number mdBook shows (`"2.3"`), None for prefix and suffix chapters.
    pub number: Option<String>,
    /// The 1-based line in SUMMARY.md.
    pub line: usize,
}

/// Every link in `text` (a SUMMARY.md), in order, with mdBook's numbering.
pub fn parse(text: &str) -> Vec<SummaryItem> {
    let mut items = Vec::new();
    // Counters per nesting level, and the indentation that opened each level.
    let mut counters: Vec<u32> = Vec::new();
    let mut indents: Vec<usize> = Vec::new();
    let mut numbered_started = false;
    let mut numbered_ended = false;

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let indent = raw.len() - raw.trim_start().len();
        let trimmed = raw.trim();
        let list_item = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "));
        match list_item {
            Some(item) if !numbered_ended => {
                numbered_started = true;
                while indents.last().is_some_and(|&open| indent < open) {
                    indents.pop();
                    counters.pop();
                }
                if indents.last().is_none_or(|&open| indent > open) {
                    indents.push(indent);
                    counters.push(0);
                }
                if let Some(last) = counters.last_mut() {
                    *last += 1;
                }
                if let Some((title, path)) = link(item) {
                    let number = counters
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(".");
                    items.push(SummaryItem {
                        title,
                        path,
                        number: Some(number),
                        line,
                    });
                }
            }
            _ => {
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                if trimmed.starts_with("---") {
                    if numbered_started {
                        numbered_ended = true;
                    }
                    continue;
                }
                if let Some((title, path)) = link(trimmed) {
                    if numbered_started {
                        numbered_ended = true;
                    }
                    items.push(SummaryItem {
                        title,
                        path,
                        number: None,
                        line,
                    });
                }
            }
        }
    }
    items
}

/// `[title](path)` → (title, path); an empty path is a draft.
fn link(text: &str) -> Option<(String, Option<String>)> {
    let rest = text.strip_prefix('[')?;
    let (title, rest) = rest.split_once("](")?;
    let (path, _) = rest.split_once(')')?;
    let path = path.trim();
    Some((
        title.to_string(),
        (!path.is_empty()).then(|| path.to_string()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_mdbook() {
        let text = "# Summary\n\n[Introduction](intro.md)\n\n\
            - [One](ch01/index.md)\n  - [A](ch01/a.md)\n  - [B](ch01/b.md)\n    - [Deep](ch01/d.md)\n\
            - [Two](ch02/index.md)\n  - [Draft]()\n\n---\n\n[Claims](claims.md)\n";
        let got: Vec<(Option<String>, Option<String>)> = parse(text)
            .into_iter()
            .map(|i| (i.path, i.number))
            .collect();
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            got,
            vec![
                (s("intro.md"), None),
                (s("ch01/index.md"), s("1")),
                (s("ch01/a.md"), s("1.1")),
                (s("ch01/b.md"), s("1.2")),
                (s("ch01/d.md"), s("1.2.1")),
                (s("ch02/index.md"), s("2")),
                (None, s("2.1")),
                (s("claims.md"), None),
            ]
        );
    }
}
