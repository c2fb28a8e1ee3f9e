//! The book's claims and their evidence.
//!
//! A statement in the book about how oneloop behaves carries a marker
//! `<!-- claim:ID -->`; `book/src/claims.md` has a table with one row per ID:
//! `| ID | evidence | summary |`, where the evidence is a file (`path`, an example) or a
//! test function in a file (`path::fn_name`), relative to the workspace root. This suite
//! checks both directions and that the evidence exists, and lists every problem at once.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        let path = entry.path();
        if path.is_dir() {
            out.extend(pages(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// A `<!-- claim:ID -->` marker: where, and which id.
#[derive(Debug, PartialEq)]
struct Marker {
    page: String,
    line: usize,
    id: String,
}

fn markers(page: &str, text: &str) -> Vec<Marker> {
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(start) = rest.find("<!--") {
            let after = &rest[start + 4..];
            let end = after.find("-->").unwrap_or(after.len());
            let body = after[..end].trim();
            if let Some(id) = body.strip_prefix("claim:") {
                out.push(Marker {
                    page: page.to_string(),
                    line: index + 1,
                    id: id.trim().to_string(),
                });
            }
            rest = &after[end..];
        }
    }
    out
}

/// One row of the claims table.
#[derive(Debug, PartialEq)]
struct Row {
    line: usize,
    id: String,
    evidence: String,
}

/// The rows of the first table in claims.md (header and separator skipped), and the
/// lines that look like rows but do not have three cells.
fn rows(text: &str) -> (Vec<Row>, Vec<String>) {
    let mut rows = Vec::new();
    let mut malformed = Vec::new();
    let mut header_seen = false;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if !header_seen {
            header_seen = true;
            continue;
        }
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
        {
            continue;
        }
        if cells.len() != 3 || cells[0].is_empty() || cells[1].is_empty() {
            malformed.push(format!(
                "book/src/claims.md:{}: a row needs `| id | evidence | summary |`: {line}",
                index + 1
            ));
            continue;
        }
        rows.push(Row {
            line: index + 1,
            id: cells[0].trim_matches('`').to_string(),
            evidence: cells[1].trim_matches('`').to_string(),
        });
    }
    (rows, malformed)
}

/// The problem with `evidence`, if any: it must be `path::fn_name`, where `path` is not
/// an example and holds a `#[test] fn fn_name`.
///
/// An example prints figures and asserts nothing, so it cannot fail when a claim turns
/// false: it may illustrate a sentence, but the evidence is a test that asserts what
/// the sentence states.
fn check_evidence(root: &Path, evidence: &str) -> Option<String> {
    let (path, function) = match evidence.split_once("::") {
        Some((path, function)) => (path, Some(function)),
        None => (evidence, None),
    };
    let Ok(text) = fs::read_to_string(root.join(path)) else {
        return Some(format!("`{path}` does not exist"));
    };
    if Path::new(path)
        .components()
        .any(|c| c.as_os_str() == "examples")
    {
        return Some(format!(
            "`{evidence}` is an example, which asserts nothing; cite a test that asserts \
             what the sentence states"
        ));
    }
    let Some(function) = function else {
        return Some(format!(
            "`{path}` is a file, not a test; cite `{path}::test_fn`"
        ));
    };
    let needle = format!("fn {function}");
    let found: Vec<usize> = text
        .match_indices(&needle)
        .filter(|(at, _)| {
            let next = text[at + needle.len()..].chars().next();
            !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(at, _)| at)
        .collect();
    if found.is_empty() {
        return Some(format!("`{path}` has no `fn {function}`"));
    }
    let is_test = found
        .iter()
        .any(|&at| attributes_before(&text[..at]).contains("#[test]"));
    // The truth suites declare one `#[test]` per scenario through a macro, by name.
    let macro_test = text.contains("macro_rules!")
        && text
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{function}:")));
    (!is_test && !macro_test).then(|| format!("`{path}`: `fn {function}` is not a `#[test]`"))
}

/// The attribute and comment lines right above an item that begins where `before` ends.
fn attributes_before(before: &str) -> String {
    let mut lines: Vec<&str> = before
        .split('\n')
        .rev()
        .skip(1) // the item's own line, up to `fn`
        .map(str::trim)
        .take_while(|l| l.starts_with("#[") || l.starts_with("//") || l.ends_with(")]"))
        .collect();
    // The item's line may itself begin with an attribute: `#[test] fn x()`.
    if let Some(own) = before.split('\n').next_back() {
        lines.push(own.trim());
    }
    lines.join("\n")
}

fn problems(root: &Path) -> Vec<String> {
    let book = root.join("book/src");
    let claims_file = book.join("claims.md");
    let mut problems = Vec::new();
    let Ok(claims_text) = fs::read_to_string(&claims_file) else {
        return vec!["book/src/claims.md is missing".to_string()];
    };

    let mut used: BTreeMap<String, Vec<Marker>> = BTreeMap::new();
    for page in pages(&book) {
        if page == claims_file {
            continue;
        }
        let text = fs::read_to_string(&page).unwrap_or_default();
        let shown = page
            .strip_prefix(root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for marker in markers(&shown, &text) {
            if marker.id.is_empty() || marker.id.contains(char::is_whitespace) {
                problems.push(format!(
                    "{}:{}: malformed claim marker id `{}`",
                    marker.page, marker.line, marker.id
                ));
                continue;
            }
            used.entry(marker.id.clone()).or_default().push(marker);
        }
    }

    let (rows, malformed) = rows(&claims_text);
    problems.extend(malformed);
    let mut by_id: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for row in &rows {
        by_id.entry(row.id.as_str()).or_default().push(row);
    }

    for (id, markers) in &used {
        let first = &markers[0];
        match by_id.get(id.as_str()).map_or(0, Vec::len) {
            0 => problems.push(format!(
                "{}:{}: claim `{id}` has no row in book/src/claims.md",
                first.page, first.line
            )),
            1 => {}
            n => problems.push(format!(
                "book/src/claims.md: claim `{id}` has {n} rows (lines {}); it needs exactly one",
                by_id[id.as_str()]
                    .iter()
                    .map(|r| r.line.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    for row in &rows {
        if !used.contains_key(&row.id) {
            problems.push(format!(
                "book/src/claims.md:{}: claim `{}` is marked nowhere in the book",
                row.line, row.id
            ));
        }
        if let Some(problem) = check_evidence(root, &row.evidence) {
            problems.push(format!(
                "book/src/claims.md:{}: claim `{}`: evidence {problem}",
                row.line, row.id
            ));
        }
    }
    problems
}

#[test]
fn every_claim_has_exactly_one_row_with_evidence_that_exists() {
    let problems = problems(&root());
    assert!(
        problems.is_empty(),
        "the book's claims: {} problem(s):\n  - {}",
        problems.len(),
        problems.join("\n  - ")
    );
}

#[test]
fn the_checker_finds_each_kind_of_problem() {
    // A small book on disk with one of each mistake, so the checker cannot pass vacuously.
    let dir = std::env::temp_dir().join(format!("oneloop-claims-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("book/src/ch01")).unwrap();
    fs::create_dir_all(dir.join("tests")).unwrap();
    fs::create_dir_all(dir.join("examples")).unwrap();
    fs::write(dir.join("examples/show.rs"), "fn main() {}\n").unwrap();
    fs::write(
        dir.join("tests/order.rs"),
        "#[test]\nfn ex1_fifo() {}\n#[test]\n#[ignore]\nfn ex1_fifo_long() {}\nfn helper() {}\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/src/ch01/page.md"),
        "FIFO. <!-- claim:s1-fifo -->\nTwice <!-- claim:s1-twice --> and <!--claim:s1-lost-->\n\
         Bad fn <!-- claim:s1-nofn --> <!-- claim:s1-long --> <!-- claim:s1-helper -->\n\
         Figures <!-- claim:s1-example -->\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/src/claims.md"),
        "# Claims\n\n| claim | evidence | what it shows |\n|---|---|---|\n\
         | s1-fifo | `tests/order.rs::ex1_fifo` | first in, first out |\n\
         | s1-twice | tests/order.rs::ex1_fifo | a |\n| s1-twice | tests/order.rs::ex1_fifo | b |\n\
         | s1-nofn | tests/order.rs::ex1_fif | prefix is not enough |\n\
         | s1-unused | tests/gone.rs | nobody marks it |\n| broken row |\n\
         | s1-long | tests/order.rs::ex1_fifo_long | an ignored test is still a test |\n\
         | s1-helper | tests/order.rs::helper | not a test |\n\
         | s1-example | examples/show.rs::main | an example |\n\
         | s1-file | tests/order.rs | a file |\n",
    )
    .unwrap();
    let found = problems(&dir);
    let expected = [
        "claims.md:10: a row needs",
        "page.md:2: claim `s1-lost` has no row",
        "claim `s1-twice` has 2 rows (lines 6, 7)",
        "claims.md:8: claim `s1-nofn`: evidence `tests/order.rs` has no `fn ex1_fif`",
        "claims.md:9: claim `s1-unused` is marked nowhere",
        "claims.md:9: claim `s1-unused`: evidence `tests/gone.rs` does not exist",
        "claims.md:12: claim `s1-helper`: evidence `tests/order.rs`: `fn helper` is not a `#[test]`",
        "claims.md:13: claim `s1-example`: evidence `examples/show.rs::main` is an example",
        "claims.md:14: claim `s1-file` is marked nowhere",
        "claims.md:14: claim `s1-file`: evidence `tests/order.rs` is a file, not a test",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (problem, expected) in found.iter().zip(expected) {
        assert!(
            problem.contains(expected),
            "{problem:?} should contain {expected:?}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Lines where a claim marker begins a line right under text of the same paragraph or
/// quote. Markdown reads a line that begins with `<!--` as an HTML block, which cuts
/// the paragraph in two where it stands, so the page shows a stray break.
fn markers_that_split_a_paragraph(page: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_code = false;
    let mut previous = "";
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_code = !in_code;
        }
        let unquoted = trimmed.trim_start_matches('>').trim_start();
        let previous_unquoted = previous.trim_start().trim_start_matches('>').trim();
        let inside_text = !previous_unquoted.is_empty()
            && !previous_unquoted.starts_with('|')
            && !previous_unquoted.starts_with("```")
            && !previous_unquoted.starts_with('#');
        if !in_code && unquoted.starts_with("<!-- claim:") && inside_text {
            found.push(format!(
                "{page}:{}: a claim marker starts this line and splits its paragraph; \
                 put it at the end of the line before",
                index + 1
            ));
        }
        previous = line;
    }
    found
}

#[test]
fn no_claim_marker_splits_a_paragraph() {
    let root = root();
    let mut found = Vec::new();
    for page in pages(&root.join("book/src")) {
        let text = fs::read_to_string(&page).expect("a book page is readable");
        let name = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        found.extend(markers_that_split_a_paragraph(&name, &text));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_paragraph_check_sees_a_split_and_lets_a_marker_at_the_end_pass() {
    let split = "Some text\n<!-- claim:x -->. More text.\n";
    assert_eq!(markers_that_split_a_paragraph("p.md", split).len(), 1);
    let quoted = "> Some text\n> <!-- claim:x --> more\n";
    assert_eq!(markers_that_split_a_paragraph("p.md", quoted).len(), 1);
    let fine = "Some text. <!-- claim:x -->\nMore text.\n\n<!-- claim:y -->\n";
    assert!(markers_that_split_a_paragraph("p.md", fine).is_empty());
}
