//! The book's reading standard, checked on every chapter page.
//!
//! "Chapter pages" are the pages of the numbered chapters in `book/src/SUMMARY.md` (a
//! top-level list item and the items nested under it), plus the introduction, in
//! SUMMARY.md order: that order is the reading order. Each check has a self-test that
//! feeds it a bad example, so none of them can pass by finding nothing.
//!
//! - **Paragraphs of at most 120 words.** Fenced code blocks (```` ``` ```` or `~~~`)
//!   are removed first. A *paragraph* is then a run of consecutive non-blank lines,
//!   except lines that begin a heading (`#`), a blockquote, note or admonition (`>`), a
//!   table row (`|`), an `{{#include}}`, or an HTML block (a line that starts with
//!   `<!--`, with `</`, or with a tag from `details`, `summary`, `div`, `figure`, `img`,
//!   `p`, `script`, `iframe`, `svg`). Each list item (`- `, `* `, `+ `, `1. `) starts a
//!   paragraph of its own, and its continuation lines belong to it. Words are
//!   whitespace-separated tokens after HTML comments (claim markers) are removed.
//! - **Recaps are collapsed.** A recap shows the solution of an exercise of an earlier
//!   stage. Concretely: an `{{#include}}` of a file that some `exercises/*/course.toml`
//!   names as a `solution`, on a page of a later chapter than that exercise's, must sit
//!   between `<details>` and `</details>`, and that block's `<summary>` must say
//!   "open after you have solved stage M" with M the exercise's stage. A heading that
//!   begins with "Recap" must be followed by such a block before the next heading.
//! - **A "run this now" step in the middle of every chapter.** The mark is an mdBook
//!   admonition whose first line after `> [!TIP]` is `> **Run this now.**`, followed in
//!   the same quote by a fenced block holding the command. It must appear on a page of
//!   the chapter that is neither its first page (the chapter's index) nor its last (the
//!   exercises). A command that names `--example NAME` must name an example that exists
//!   under `crates/*/examples/`.
//! - **Terms defined before use.** `book/src/glossary.md` has a table whose first column
//!   is the term. The definition marker is `<dfn>term</dfn>` in the page that defines
//!   it. A *use* is the term as a whole word, any case, optionally followed by `s`, `es`,
//!   `ed` or `ing`, anywhere in the page's text outside fenced code, HTML comments,
//!   headings and link targets (inline code counts: `Driver::park` uses "park"). Where
//!   a longer glossary term contains a shorter one ("join handle", "handle"), the
//!   longer one's occurrences are not uses of the shorter. Each term's first marker must
//!   come before its first use in reading order (a marker is itself no use).
//! - **`_run_once` outlined against the real source.** Chapter 4's outline of CPython
//!   3.11's `BaseEventLoop._run_once` gives six regions with line ranges counted from the
//!   `def` line as line 1 (as `inspect.getsourcelines` numbers them). This suite runs
//!   `python3` and checks each range against the source: in order, not overlapping,
//!   each range holding the call or name that makes the region what it is.
//!
//! [`NOT_YET_REREAD`] would name a chapter not yet reread to this standard (the first
//! three checks would skip its pages; the term check would still read them); every
//! chapter has been reread today. [`NO_RUN_STEP_YET`] would name a chapter that has no
//! "run this now" step yet (only the run-step check would skip it); every chapter has
//! one today.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use oneloop_course::Catalog;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Chapters not yet reread to this standard (page prefixes); each must exist.
const NOT_YET_REREAD: &[&str] = &[];

fn reread(page: &str) -> bool {
    !NOT_YET_REREAD.iter().any(|p| page.starts_with(p))
}

/// Chapters that have no "run this now" step yet (page prefixes); each must exist.
const NO_RUN_STEP_YET: &[&str] = &[];

#[test]
fn the_chapters_not_yet_reread_exist() {
    for prefix in NOT_YET_REREAD.iter().chain(NO_RUN_STEP_YET) {
        assert!(
            root().join("book/src").join(prefix).is_dir(),
            "{prefix} is no chapter"
        );
    }
}

/// One numbered chapter: its pages in reading order (index first, exercises last).
#[derive(Debug)]
struct Chapter {
    pages: Vec<String>,
}

/// The introduction (the pages before the first chapter) and the numbered chapters.
fn summary(text: &str) -> (Vec<String>, Vec<Chapter>) {
    let mut front = Vec::new();
    let mut chapters: Vec<Chapter> = Vec::new();
    for line in text.lines() {
        if line.trim() == "---" {
            break;
        }
        let Some(open) = line.find("](") else {
            continue;
        };
        let Some(close) = line[open..].find(')') else {
            continue;
        };
        let page = line[open + 2..open + close].to_string();
        let trimmed = line.trim_start();
        let nested = line.len() - trimmed.len() > 0;
        if !trimmed.starts_with('-') {
            front.push(page);
        } else if nested {
            if let Some(chapter) = chapters.last_mut() {
                chapter.pages.push(page);
            }
        } else {
            chapters.push(Chapter { pages: vec![page] });
        }
    }
    (front, chapters)
}

/// Every chapter page in reading order: the introduction, then each chapter's pages.
fn reading_order(root: &Path) -> (Vec<String>, Vec<Chapter>) {
    let (front, chapters) = summary(&read(&root.join("book/src/SUMMARY.md")));
    let mut order = front;
    for chapter in &chapters {
        order.extend(chapter.pages.iter().cloned());
    }
    (order, chapters)
}

/// The page with fenced code replaced by blank lines (line numbers kept).
fn without_code(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let unquoted = line.trim_start().trim_start_matches('>').trim_start();
        let marker = if unquoted.starts_with("```") {
            Some("```")
        } else if unquoted.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                out.push(String::new());
            }
            (Some(f), Some(m)) if f == m => {
                fence = None;
                out.push(String::new());
            }
            (Some(_), _) => out.push(String::new()),
            (None, None) => out.push(line.to_string()),
        }
    }
    out
}

fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

const BLOCK_TAGS: &[&str] = &[
    "details", "summary", "div", "figure", "img", "p", "script", "iframe", "svg",
];

fn starts_html_block(line: &str) -> bool {
    if line.starts_with("<!--") || line.starts_with("</") {
        return true;
    }
    let Some(rest) = line.strip_prefix('<') else {
        return false;
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    BLOCK_TAGS.contains(&name.to_ascii_lowercase().as_str())
}

fn starts_list_item(line: &str) -> bool {
    if ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m)) {
        return true;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(". ")
}

/// The paragraphs of a page (see the module docs): first line number and text.
fn paragraphs(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in without_code(text).iter().enumerate() {
        let line = line.trim();
        let outside = line.is_empty()
            || line.starts_with('#')
            || line.starts_with('>')
            || line.starts_with('|')
            || line.starts_with("{{")
            || starts_html_block(line);
        if outside || starts_list_item(line) {
            out.extend(current.take());
        }
        if outside {
            continue;
        }
        let entry = current.get_or_insert_with(|| (index + 1, String::new()));
        entry.1.push(' ');
        entry.1.push_str(line);
    }
    out.extend(current);
    out
}

const MAX_WORDS: usize = 120;

fn long_paragraphs(page: &str, text: &str) -> Vec<String> {
    paragraphs(text)
        .into_iter()
        .filter_map(|(line, body)| {
            let words = strip_comments(&body).split_whitespace().count();
            (words > MAX_WORDS).then(|| {
                format!("{page}:{line}: a paragraph of {words} words (at most {MAX_WORDS})")
            })
        })
        .collect()
}

#[test]
fn no_paragraph_is_over_120_words() {
    let root = root();
    let (order, _) = reading_order(&root);
    let mut found = Vec::new();
    for page in order.iter().filter(|p| reread(p)) {
        found.extend(long_paragraphs(
            page,
            &read(&root.join("book/src").join(page)),
        ));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_paragraph_check_counts_prose_and_skips_the_rest() {
    let long = "word ".repeat(121);
    let bad = format!("Intro.\n\n{long}\n");
    assert_eq!(long_paragraphs("p.md", &bad).len(), 1);
    // Two lines of one paragraph are counted together.
    let split = format!("{}\n{}\n", "word ".repeat(61), "word ".repeat(60));
    assert_eq!(long_paragraphs("p.md", &split).len(), 1);
    // A claim marker is not a word; a blank line ends a paragraph; a list item is alone.
    let fine = format!(
        "{} <!-- claim:a-b-c -->\n\n{}\n- {}\n- {}\n",
        "word ".repeat(120),
        "word ".repeat(100),
        "word ".repeat(100),
        "word ".repeat(100)
    );
    assert!(long_paragraphs("p.md", &fine).is_empty(), "{fine}");
    let quoted = format!("> [!NOTE]\n> {long}\n\n```text\n{long}\n```\n\n| {long} |\n");
    assert!(long_paragraphs("p.md", &quoted).is_empty());
    // An HTML block ends a paragraph; an inline tag does not.
    let html = format!(
        "{}\n<details>\n{}\n",
        "word ".repeat(100),
        "word ".repeat(100)
    );
    assert!(long_paragraphs("p.md", &html).is_empty());
    let inline = format!(
        "{}\n<dfn>x</dfn> {}\n",
        "word ".repeat(100),
        "word ".repeat(100)
    );
    assert_eq!(long_paragraphs("p.md", &inline).len(), 1);
}

/// Solution files and the stage of their exercise, from the course's catalog.
fn solutions(root: &Path) -> BTreeMap<String, u32> {
    let catalog = Catalog::load(root).unwrap_or_else(|e| panic!("the stage catalog: {e}"));
    let out: BTreeMap<String, u32> = catalog
        .stages
        .iter()
        .flat_map(|stage| {
            stage.exercises.iter().map(|exercise| {
                let file = exercise.solution.to_string_lossy().replace('\\', "/");
                (file, stage.number)
            })
        })
        .collect();
    assert!(
        !out.is_empty(),
        "the catalog lists no solution file: the recap check would check nothing"
    );
    out
}

/// The chapter number of a page: `ch04-core/x.md` is 4.
fn chapter_of(page: &str) -> Option<u32> {
    page.strip_prefix("ch")?.get(..2)?.parse().ok()
}

fn uncollapsed_recaps(page: &str, text: &str, solutions: &BTreeMap<String, u32>) -> Vec<String> {
    let mut found = Vec::new();
    let Some(chapter) = chapter_of(page) else {
        return found;
    };
    let mut summary: Option<String> = None;
    let mut in_details = false;
    let mut recap_heading: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("<details") {
            in_details = true;
            summary = None;
            recap_heading = None;
        }
        if trimmed.contains("<summary>") {
            summary = Some(trimmed.to_ascii_lowercase());
        }
        if trimmed.starts_with("</details>") {
            in_details = false;
        }
        if trimmed.starts_with('#') {
            if let Some(at) = recap_heading.take() {
                found.push(format!("{page}:{at}: a recap with no collapsed block"));
            }
            let title = trimmed.trim_start_matches('#').trim().to_ascii_lowercase();
            if title.starts_with("recap") {
                recap_heading = Some(index + 1);
            }
        }
        let Some(start) = trimmed.find("{{#include ") else {
            continue;
        };
        let target = trimmed[start + 11..].split([':', '}']).next().unwrap_or("");
        let file = target.trim_start_matches("../").to_string();
        let Some(&stage) = solutions.get(&file) else {
            continue;
        };
        if stage >= chapter {
            continue;
        }
        let wanted = format!("open after you have solved stage {stage}");
        let ok = in_details && summary.as_deref().is_some_and(|s| s.contains(&wanted));
        if !ok {
            found.push(format!(
                "{page}:{}: stage {stage}'s solution `{file}` is shown outside a \
                 `<details>` block whose summary says \"{wanted}\"",
                index + 1
            ));
        }
    }
    if let Some(at) = recap_heading {
        found.push(format!("{page}:{at}: a recap with no collapsed block"));
    }
    found
}

#[test]
fn every_recap_of_a_solution_is_collapsed() {
    let root = root();
    let solutions = solutions(&root);
    assert!(
        solutions.len() > 10,
        "the course.toml files name their solutions"
    );
    let (order, _) = reading_order(&root);
    let mut found = Vec::new();
    for page in order.iter().filter(|p| reread(p)) {
        let text = read(&root.join("book/src").join(page));
        found.extend(uncollapsed_recaps(page, &text, &solutions));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_recap_check_sees_an_open_solution() {
    let solutions = BTreeMap::from([("crates/03-task/src/step.rs".to_string(), 3)]);
    let include = "{{#include ../../../crates/03-task/src/step.rs:step}}";
    let open = format!("## Recap\n\n```rust\n{include}\n```\n\n## Next\n");
    assert_eq!(
        uncollapsed_recaps("ch04-core/index.md", &open, &solutions).len(),
        2
    );
    let wrong = format!(
        "<details>\n<summary>Stage 2's step</summary>\n\n```rust\n{include}\n```\n\n</details>\n"
    );
    assert_eq!(
        uncollapsed_recaps("ch04-core/index.md", &wrong, &solutions).len(),
        1
    );
    let closed = format!(
        "## Recap\n\n<details>\n<summary>The step (open after you have solved stage 3)\
         </summary>\n\n```rust\n{include}\n```\n\n</details>\n\n## Next\n"
    );
    assert!(uncollapsed_recaps("ch04-core/index.md", &closed, &solutions).is_empty());
    // In its own chapter a solution is not a recap.
    assert!(
        uncollapsed_recaps(
            "ch03-task/step.md",
            &open.replace("## Recap", "## Step"),
            &solutions
        )
        .is_empty()
    );
}

/// The "run this now" steps of a page: the command lines of each.
fn run_steps(text: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.trim() != "> [!TIP]" {
            continue;
        }
        let Some(next) = lines.get(index + 1) else {
            continue;
        };
        if next.trim() != "> **Run this now.**" {
            continue;
        }
        let mut commands = Vec::new();
        let mut in_fence = false;
        for line in &lines[index + 2..] {
            let Some(body) = line.trim_start().strip_prefix('>') else {
                break;
            };
            let body = body.trim();
            if body.starts_with("```") {
                in_fence = !in_fence;
            } else if in_fence && !body.is_empty() {
                commands.push(body.to_string());
            }
        }
        out.push(commands);
    }
    out
}

fn examples(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for krate in fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for example in fs::read_dir(krate.path().join("examples"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = example.file_name().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".rs") {
                out.push(stem.to_string());
            } else if example.path().is_dir() {
                out.push(name);
            }
        }
    }
    out
}

fn missing_run_steps(chapter: &Chapter, texts: &[String], examples: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let mut middle = 0;
    for (index, (page, text)) in chapter.pages.iter().zip(texts).enumerate() {
        for commands in run_steps(text) {
            if commands.is_empty() {
                found.push(format!("{page}: a \"Run this now\" step with no command"));
            }
            for command in &commands {
                let mut words = command.split_whitespace();
                while let Some(word) = words.next() {
                    if word == "--example" {
                        let name = words.next().unwrap_or("");
                        if !examples.iter().any(|e| e == name) {
                            found.push(format!("{page}: `{command}` names no example"));
                        }
                    }
                }
            }
            if index > 0 && index + 1 < chapter.pages.len() && !commands.is_empty() {
                middle += 1;
            }
        }
    }
    if middle == 0 {
        found.push(format!(
            "chapter {}: no \"Run this now\" step on a page between its index and its exercises",
            chapter.pages[0]
        ));
    }
    found
}

#[test]
fn every_chapter_has_a_run_this_now_step_in_its_middle() {
    let root = root();
    let examples = examples(&root);
    let (_, chapters) = reading_order(&root);
    assert!(chapters.len() >= 8, "SUMMARY.md lists the chapters");
    let mut found = Vec::new();
    let pending = |page: &str| NO_RUN_STEP_YET.iter().any(|p| page.starts_with(p));
    for chapter in chapters
        .iter()
        .filter(|c| reread(&c.pages[0]) && !pending(&c.pages[0]))
    {
        let texts: Vec<String> = chapter
            .pages
            .iter()
            .map(|p| read(&root.join("book/src").join(p)))
            .collect();
        found.extend(missing_run_steps(chapter, &texts, &examples));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_run_step_check_wants_a_command_in_the_middle() {
    let chapter = Chapter {
        pages: vec!["i.md".into(), "a.md".into(), "ex.md".into()],
    };
    let step = "> [!TIP]\n> **Run this now.**\n>\n> ```sh\n> cargo run --example pulse\n> ```\n";
    let examples = vec!["pulse".to_string()];
    let at_end = vec![String::new(), String::new(), step.to_string()];
    assert_eq!(missing_run_steps(&chapter, &at_end, &examples).len(), 1);
    let in_middle = vec![String::new(), step.to_string(), String::new()];
    assert!(missing_run_steps(&chapter, &in_middle, &examples).is_empty());
    let no_example = vec![
        String::new(),
        step.replace("pulse", "nothing"),
        String::new(),
    ];
    assert_eq!(missing_run_steps(&chapter, &no_example, &examples).len(), 1);
    let untitled = vec![
        String::new(),
        step.replace("**Run this now.**", ""),
        String::new(),
    ];
    assert_eq!(missing_run_steps(&chapter, &untitled, &examples).len(), 1);
}

/// The glossary's terms: the first cell of each row of its table.
fn glossary_terms(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.trim_start().starts_with('|'))
        .skip(2)
        .filter_map(|l| l.split('|').nth(1))
        .map(|t| t.trim().trim_matches('*').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// A page's text as the term check sees it: no code, comments, headings, link targets.
fn searchable(text: &str) -> String {
    let mut out = String::new();
    for line in without_code(text) {
        if line.trim_start().starts_with('#') {
            out.push('\n');
            continue;
        }
        let mut line = line.clone();
        while let Some(start) = line.find("](") {
            let end = line[start..]
                .find(')')
                .map_or(line.len(), |e| start + e + 1);
            line.replace_range(start + 1..end, "");
        }
        out.push_str(&line);
        out.push('\n');
    }
    strip_comments(&out)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Byte offsets of the uses of `term` in `text` (see the module docs), skipping the
/// ranges in `masked`.
fn uses(text: &str, term: &str, masked: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let lower = text.to_lowercase();
    let term = term.to_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find(&term) {
        let start = from + at;
        let mut end = start + term.len();
        from = start + 1;
        if lower[..start].chars().next_back().is_some_and(is_word) {
            continue;
        }
        let rest = &lower[end..];
        let suffix = ["ing", "es", "ed", "s"]
            .iter()
            .find(|s| rest.starts_with(*s) && !rest[s.len()..].starts_with(is_word))
            .map_or(0, |s| s.len());
        end += suffix;
        if lower[end..].starts_with(is_word) {
            continue;
        }
        if masked.iter().any(|&(a, b)| start >= a && end <= b) {
            continue;
        }
        out.push((start, end));
    }
    out
}

/// For each term: `Err` naming its first use if that comes before its first marker.
fn undefined_uses(terms: &[String], pages: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for term in terms {
        let longer: Vec<&String> = terms
            .iter()
            .filter(|t| t.len() > term.len() && t.to_lowercase().contains(&term.to_lowercase()))
            .collect();
        let marker = format!("<dfn>{}</dfn>", term.to_lowercase());
        let mut defined = false;
        let mut reported = false;
        for (page, text) in pages {
            let text = searchable(text);
            let lower = text.to_lowercase();
            let mut masked: Vec<(usize, usize)> =
                longer.iter().flat_map(|t| uses(&text, t, &[])).collect();
            let first_marker = lower.find(&marker);
            if let Some(at) = first_marker {
                masked.push((at, at + marker.len()));
            }
            let first_use = uses(&text, term, &masked).first().map(|u| u.0);
            if !defined
                && !reported
                && let Some(at) = first_use
                && first_marker.is_none_or(|m| m > at)
            {
                let line = text[..at].matches('\n').count() + 1;
                found.push(format!(
                    "{page}:{line}: \"{term}\" is used before its <dfn> marker"
                ));
                reported = true;
            }
            defined |= first_marker.is_some();
        }
        if !defined {
            found.push(format!("\"{term}\" has no <dfn>{term}</dfn> in the book"));
        }
    }
    found
}

#[test]
fn every_glossary_term_is_defined_before_its_first_use() {
    let root = root();
    let terms = glossary_terms(&read(&root.join("book/src/glossary.md")));
    assert!(terms.len() >= 8, "the glossary lists its terms: {terms:?}");
    let (order, _) = reading_order(&root);
    let pages: Vec<(String, String)> = order
        .iter()
        .map(|p| (p.clone(), read(&root.join("book/src").join(p))))
        .collect();
    let found = undefined_uses(&terms, &pages);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_term_check_sees_a_use_before_the_definition() {
    let terms = vec![
        "park".to_string(),
        "handle".to_string(),
        "join handle".to_string(),
    ];
    let page = |t: &str| ("p.md".to_string(), t.to_string());
    let early = [
        page("The loop parks here. A join handle waits."),
        page("To <dfn>park</dfn> is to sleep. A <dfn>handle</dfn>, a <dfn>join handle</dfn>."),
    ];
    let found = undefined_uses(&terms, &early);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("\"park\""), "{found:?}");
    assert!(found[1].contains("\"join handle\""), "{found:?}");
    // "join handle" is no use of "handle"; a heading, a link target, code and a
    // comment are no uses; "parking lot" uses park, "parkour" does not.
    let fine = [page(
        "# Parks\n\n[x](park.md) <!-- park --> parkour\n\n```\npark\n```\n\
         To <dfn>park</dfn>: parking. A <dfn>join handle</dfn>. A join handle. A <dfn>handle</dfn>.\n",
    )];
    assert!(
        undefined_uses(&terms, &fine).is_empty(),
        "{:?}",
        undefined_uses(&terms, &fine)
    );
    assert_eq!(undefined_uses(&terms, &[page("no markers")]).len(), 3);
}

/// The regions of `_run_once` that chapter 4 outlines: step, first and last line.
fn outline(text: &str) -> Vec<(u32, usize, usize)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 {
            continue;
        }
        let Some(step) = cells[1].strip_prefix("step ").and_then(|n| n.parse().ok()) else {
            continue;
        };
        let range = cells[2].trim_start_matches("lines ");
        let mut ends = range.split(['–', '-']).map(|n| n.trim().parse::<usize>());
        let (Some(Ok(first)), last) = (ends.next(), ends.next()) else {
            continue;
        };
        let last = match last {
            Some(Ok(last)) => last,
            _ => first,
        };
        out.push((step, first, last));
    }
    out
}

/// What each step's region must hold, to be that step.
const REGION_MARKS: [(u32, &str); 6] = [
    (1, "_timer_cancelled_count"),
    (2, "timeout = "),
    (3, "_selector.select("),
    (4, "_process_events("),
    (5, "end_time"),
    (6, "ntodo"),
];

fn outline_problems(regions: &[(u32, usize, usize)], source: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    let steps: Vec<u32> = regions.iter().map(|r| r.0).collect();
    if steps != [1, 2, 3, 4, 5, 6] {
        found.push(format!(
            "the outline gives steps {steps:?}, not 1 to 6 in order"
        ));
        return found;
    }
    let mut previous = 0;
    for &(step, first, last) in regions {
        if first <= previous || last < first || last > source.len() {
            found.push(format!(
                "step {step}: lines {first}–{last} are out of order or range"
            ));
            continue;
        }
        previous = last;
        let body = source[first - 1..last].join("\n");
        let mark = REGION_MARKS[step as usize - 1].1;
        if !body.contains(mark) {
            found.push(format!(
                "step {step}: lines {first}–{last} do not hold `{mark}`"
            ));
        }
        if source[first - 1].trim().is_empty() || source[last - 1].trim().is_empty() {
            found.push(format!(
                "step {step}: lines {first}–{last} begin or end on a blank line"
            ));
        }
    }
    found
}

#[test]
fn chapter_4_outlines_run_once_with_its_real_line_ranges() {
    let root = root();
    let regions = outline(&read(&root.join("book/src/ch04-core/turn.md")));
    let script = "import inspect, asyncio.base_events as b, sys\n\
                  lines, _ = inspect.getsourcelines(b.BaseEventLoop._run_once)\n\
                  print(sys.version_info[:2], file=sys.stderr)\n\
                  sys.stdout.write(''.join(lines))";
    let output = Command::new("python3")
        .args(["-c", script])
        .output()
        .expect("python3 is required for this suite (see README.md)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("(3, 11)"),
        "the outline is of CPython 3.11's source"
    );
    let source = String::from_utf8(output.stdout).expect("the source is UTF-8");
    let lines: Vec<&str> = source.lines().collect();
    let found = outline_problems(&regions, &lines);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_outline_check_sees_a_wrong_range() {
    let source = [
        "def f():",
        "  x._timer_cancelled_count",
        "  timeout = 1",
        "  x._selector.select(t)",
        "  x._process_events(e)",
        "  end_time = 2",
        "  ntodo = 3",
    ];
    let table = "| step 1 | 2 | a |\n| step 2 | 3 | b |\n| step 3 | 4 | c |\n\
                 | step 4 | 5 | d |\n| step 5 | 6 | e |\n| step 6 | 7 | f |\n";
    assert!(outline_problems(&outline(table), &source).is_empty());
    let shifted = table.replace("| step 6 | 7 |", "| step 6 | 6–7 |");
    assert_eq!(outline_problems(&outline(&shifted), &source).len(), 1);
    let wrong = table.replace("| step 3 | 4 |", "| step 3 | 3–4 |");
    assert!(!outline_problems(&outline(&wrong), &source).is_empty());
    assert_eq!(
        outline_problems(&outline("| step 1 | 2 | a |"), &source).len(),
        1
    );
}

/// The asyncio names the book writes in code type: every backticked span that begins
/// with `asyncio.`, `loop.` or `BaseEventLoop.`, cut at the end of its dotted name.
fn asyncio_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (index, span) in text.split('`').enumerate() {
        if index % 2 == 0 {
            continue;
        }
        if !["asyncio.", "loop.", "BaseEventLoop."]
            .iter()
            .any(|p| span.starts_with(p))
        {
            continue;
        }
        let name: String = span
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        out.push(name.trim_end_matches('.').to_string());
    }
    out
}

/// The names the table of `names.md` gives in its first column.
fn table_names(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('|').nth(1))
        .map(|c| c.trim().trim_matches('`').to_string())
        .collect()
}

fn names_missing_from_table(pages: &[(String, String)], table: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (page, text) in pages {
        for name in asyncio_names(&strip_comments(text)) {
            let line = format!("{page}: `{name}` is not in names.md's table");
            if !table.contains(&name) && !found.contains(&line) {
                found.push(line);
            }
        }
    }
    found
}

#[test]
fn every_asyncio_name_in_the_book_is_in_the_name_table() {
    let root = root();
    let src = root.join("book/src");
    let table = table_names(&read(&src.join("names.md")));
    assert!(table.len() >= 20, "names.md has its table: {table:?}");
    let mut pages = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("a readable book dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let name = path.strip_prefix(&src).unwrap().display().to_string();
                pages.push((name, read(&path)));
            }
        }
    }
    pages.sort();
    let found = names_missing_from_table(&pages, &table);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_name_check_sees_a_name_missing_from_the_table() {
    let table = table_names("| asyncio | oneloop |\n|---|---|\n| `asyncio.run` | `run` |\n");
    assert_eq!(table, ["asyncio.run"]);
    let page = |t: &str| vec![("p.md".to_string(), t.to_string())];
    let fine = page("`asyncio.run(main())` and `inspect.getsource(asyncio.sleep)`.");
    assert!(names_missing_from_table(&fine, &table).is_empty());
    let bad = page("`asyncio.run` then `loop.call_soon(f)`, then `asyncio.gather`.");
    assert_eq!(names_missing_from_table(&bad, &table).len(), 2);
}
