//! Integrity of the course: the book's includes resolve to real code, and the stage
//! catalog, the exercise and reference crates, the hints and the book's table of
//! contents all agree.
//!
//! mdBook only logs a missing include and renders a missing anchor as nothing, so these
//! checks are what keeps the book honest. Each test gathers every problem it finds and
//! fails once, listing them all.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use oneloop_course::catalog::{self, Catalog, Stage};
use oneloop_course::hole::{HoleFile, has_challenge_hole, has_hole};
use oneloop_course::manifest::Manifest;
use oneloop_course::{hints, summary};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fails with every problem, one per line, if there are any.
fn report(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s):\n  - {}",
        problems.len(),
        problems.join("\n  - ")
    );
}

/// `path` relative to the workspace root, for messages.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Every file under `dir` whose name ends with `ext`, sorted.
fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Resolves `.` and `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn load_catalog() -> Catalog {
    let catalog = Catalog::load(&root()).unwrap_or_else(|e| panic!("the stage catalog: {e}"));
    // Not vacuous once stages exist: a numbered folder with a course.toml is a stage.
    if !catalog::stage_folders(&root()).is_empty() {
        assert!(
            !catalog.stages.is_empty(),
            "exercises/ has stage folders but the catalog is empty"
        );
    }
    catalog
}

// ---------------------------------------------------------------- includes

/// One `{{#include …}}` (or `{{#rustdoc_include …}}`) found in a page.
struct Include {
    page: PathBuf,
    line: usize,
    target: String,
}

fn includes_in(page: &Path, text: &str) -> Vec<Include> {
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(start) = rest.find("{{#") {
            let escaped = rest[..start].ends_with('\\');
            let after = &rest[start + 3..];
            let Some(end) = after.find("}}") else { break };
            let body = after[..end].trim();
            rest = &after[end + 2..];
            if escaped {
                continue;
            }
            let target = body
                .strip_prefix("include ")
                .or_else(|| body.strip_prefix("rustdoc_include "));
            if let Some(target) = target {
                out.push(Include {
                    page: page.to_path_buf(),
                    line: index + 1,
                    target: target.trim().to_string(),
                });
            }
        }
    }
    out
}

/// The problem with `include`, if any: the file must exist and an anchor must exist and
/// enclose at least one non-blank line that is not itself an anchor marker.
fn check_include(include: &Include) -> Option<String> {
    let place = format!("{}:{}", shown(&include.page), include.line);
    let (path, selector) = match include.target.split_once(':') {
        Some((path, selector)) => (path, Some(selector)),
        None => (include.target.as_str(), None),
    };
    let file = normalize(&include.page.parent()?.join(path));
    let Ok(text) = fs::read_to_string(&file) else {
        return Some(format!("{place}: included file `{path}` does not exist"));
    };
    let selector = selector?;
    let lines: Vec<&str> = text.lines().collect();
    let first = selector.split(':').next().unwrap_or("");
    if first.is_empty() || first.bytes().all(|b| b.is_ascii_digit()) {
        // A line range `a:b`, `a:` or `:b` (1-based): it must select something.
        let mut parts = selector.splitn(2, ':');
        let from: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        let to: usize = parts
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(lines.len());
        let selected = lines
            .get(from.saturating_sub(1)..to.min(lines.len()))
            .unwrap_or(&[]);
        return selected
            .iter()
            .all(|l| l.trim().is_empty())
            .then(|| format!("{place}: lines `{selector}` of `{path}` select no code"));
    }
    let anchor = selector;
    let is_marker = |line: &str, kind: &str| {
        line.split_once(kind)
            .map(|(_, name)| {
                name.trim()
                    .trim_end_matches("*/")
                    .trim_end_matches("-->")
                    .trim()
                    == anchor
            })
            .unwrap_or(false)
    };
    let Some(start) = lines.iter().position(|l| is_marker(l, "ANCHOR:")) else {
        return Some(format!("{place}: `{path}` has no `ANCHOR: {anchor}`"));
    };
    let Some(len) = lines[start + 1..]
        .iter()
        .position(|l| is_marker(l, "ANCHOR_END:"))
    else {
        return Some(format!(
            "{place}: `{path}` has `ANCHOR: {anchor}` but no `ANCHOR_END: {anchor}` after it"
        ));
    };
    // mdBook stops at the first end: a second one means the listing was meant to
    // hold more than it shows.
    let end = start + 1 + len;
    if lines[end + 1..].iter().any(|l| is_marker(l, "ANCHOR_END:")) {
        return Some(format!(
            "{place}: `{path}` has a second `ANCHOR_END: {anchor}`; mdBook stops at the first"
        ));
    }
    let code = lines[start + 1..end]
        .iter()
        .any(|l| !l.trim().is_empty() && !l.contains("ANCHOR:") && !l.contains("ANCHOR_END:"));
    (!code).then(|| format!("{place}: anchor `{anchor}` in `{path}` encloses no code"))
}

#[test]
fn every_book_include_resolves_to_code() {
    let pages = files_under(&root().join("book/src"), "md");
    assert!(
        pages.iter().any(|p| p.ends_with("SUMMARY.md")),
        "book/src/SUMMARY.md is missing"
    );
    let mut problems = Vec::new();
    for page in &pages {
        let text = fs::read_to_string(page).expect("reading a book page");
        problems.extend(includes_in(page, &text).iter().filter_map(check_include));
    }
    report("book includes", &problems);
}

#[test]
fn include_checks_catch_what_mdbook_lets_through() {
    // The checker itself, on literal samples, so a broken checker cannot pass silently.
    let dir = std::env::temp_dir().join(format!("oneloop-integrity-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("code.rs"),
        "fn a() {}\n// ANCHOR: full\nfn b() {}\n// ANCHOR_END: full\n\
         /* ANCHOR: empty */\n\n/* ANCHOR_END: empty */\n\
         // ANCHOR: twice\nfn c() {}\n// ANCHOR_END: twice\nfn d() {}\n// ANCHOR_END: twice\n\
         // ANCHOR: open\n",
    )
    .unwrap();
    let page = dir.join("page.md");
    let text = "{{#include code.rs:full}}\n{{#include code.rs:empty}}\n{{#include code.rs:twice}}\n\
                {{#include code.rs:open}}\n\
                {{#rustdoc_include code.rs:none}}\n{{#include gone.rs}}\n{{#include code.rs}}\n\
                \\{{#include gone.rs}}\n{{#include code.rs:1:1}}\n{{#include code.rs:6:6}}\n";
    let found: Vec<Option<String>> = includes_in(&page, text).iter().map(check_include).collect();
    assert_eq!(found.len(), 9, "the escaped include is skipped");
    let problems: Vec<String> = found.into_iter().flatten().collect();
    let expect = [
        "anchor `empty` in `code.rs` encloses no code",
        "has a second `ANCHOR_END: twice`",
        "has `ANCHOR: open` but no `ANCHOR_END: open`",
        "`code.rs` has no `ANCHOR: none`",
        "included file `gone.rs` does not exist",
        "lines `6:6` of `code.rs` select no code",
    ];
    assert_eq!(problems.len(), expect.len(), "{problems:#?}");
    for (problem, expected) in problems.iter().zip(expect) {
        assert!(
            problem.contains(expected),
            "{problem} should say {expected}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- catalog and book

#[test]
fn catalog_folders_and_summary_agree() {
    let root = root();
    let catalog = load_catalog();
    let summary_text = fs::read_to_string(root.join("book/src/SUMMARY.md"))
        .expect("book/src/SUMMARY.md must exist");
    let items = summary::parse(&summary_text);
    let mut problems = Vec::new();

    for item in &items {
        if let Some(path) = &item.path
            && !root.join("book/src").join(path).is_file()
        {
            problems.push(format!(
                "book/src/SUMMARY.md:{}: `{path}` does not exist",
                item.line
            ));
        }
    }

    for stage in &catalog.stages {
        let toml = stage.course_toml().display().to_string();
        let n = stage.number;
        // The stage's chapter is the one SUMMARY.md numbers as the stage (the catalog
        // finds it there), and every page SUMMARY.md lists exists (checked above).

        // The reference crate (derived: crates/ with the exercise folder's name).
        if !root.join(&stage.reference).join("Cargo.toml").is_file() {
            problems.push(format!(
                "{toml}: reference crate `{}` has no Cargo.toml",
                stage.reference.display()
            ));
        }
        for exercise in &stage.exercises {
            let at = format!("{toml}: exercise {}", exercise.id);
            if !root.join(&exercise.file).is_file() {
                problems.push(format!(
                    "{at}: file `{}` does not exist",
                    exercise.file.display()
                ));
            }
            if !root.join(&exercise.solution).is_file() {
                problems.push(format!(
                    "{at}: solution `{}` is not a file in {}/src",
                    exercise.solution.display(),
                    stage.reference.display()
                ));
            }
            // The section number is mdBook's for the page (the catalog reads it from
            // SUMMARY.md); it must sit in the stage's chapter.
            let section_prefix = format!("{n}.");
            if !exercise.section.starts_with(&section_prefix) {
                problems.push(format!(
                    "{at}: section {} is not in chapter {n}",
                    exercise.section
                ));
            }
        }
    }

    // Every numbered reference crate has its exercise folder, and the reverse.
    for parent in ["crates", "exercises"] {
        let other = if parent == "crates" {
            "exercises"
        } else {
            "crates"
        };
        let Ok(entries) = fs::read_dir(root.join(parent)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().to_string();
            if catalog::folder_number(&name).is_some() && !root.join(other).join(&name).is_dir() {
                problems.push(format!(
                    "{parent}/{name} has no partner folder {other}/{name}"
                ));
            }
        }
    }
    report("catalog, folders and SUMMARY.md", &problems);
}

// ---------------------------------------------------------------- exercise crates

/// One `mod name;` of a shim, with the attributes written before it.
#[derive(Debug)]
struct ModDecl {
    name: String,
    path: Option<String>,
    cfg: Option<String>,
}

/// The `mod name;` declarations of a crate root, with their `#[path]` and `#[cfg]`.
fn mod_decls(text: &str) -> Vec<ModDecl> {
    // Comments out; attributes and items are then read in order.
    let code: String = text
        .lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let mut decls = Vec::new();
    let mut attrs: Vec<String> = Vec::new();
    let mut rest = code.as_str();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if rest.starts_with("#![") || rest.starts_with("#[") {
            let inner = rest.starts_with("#![");
            let open = if inner { 3 } else { 2 };
            let mut depth = 1;
            let mut end = open;
            let mut in_str = false;
            for (i, c) in rest[open..].char_indices() {
                match c {
                    '"' => in_str = !in_str,
                    '[' if !in_str => depth += 1,
                    ']' if !in_str => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if !inner {
                attrs.push(rest[open..end].trim().to_string());
            }
            rest = &rest[end + 1..];
            continue;
        }
        let stop = rest.find([';', '{']).unwrap_or(rest.len());
        let item = rest[..stop].trim();
        let words: Vec<&str> = item.split_whitespace().collect();
        if let Some(at) = words.iter().position(|w| *w == "mod")
            && rest[stop..].starts_with(';')
            && let Some(name) = words.get(at + 1)
        {
            let value_of = |key: &str| {
                attrs.iter().find_map(|a| {
                    let value = a.strip_prefix(key)?.trim_start();
                    Some(value.to_string())
                })
            };
            decls.push(ModDecl {
                name: name.to_string(),
                path: value_of("path").and_then(|v| {
                    let v = v.strip_prefix('=')?.trim();
                    Some(v.trim_matches('"').to_string())
                }),
                cfg: value_of("cfg").map(|v| {
                    let v = v.strip_prefix('(').unwrap_or(&v);
                    v.strip_suffix(')').unwrap_or(v).replace(' ', "")
                }),
            });
        }
        attrs.clear();
        // Skip a block item whole (`{ … }`), else just past the `;`.
        if rest[stop..].starts_with('{') {
            let mut depth = 0;
            let mut end = rest.len();
            for (i, c) in rest[stop..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = stop + i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &rest[end..];
        } else {
            rest = &rest[(stop + 1).min(rest.len())..];
        }
    }
    decls
}

#[test]
fn shim_declarations_are_read_with_their_attributes() {
    let shim = "//! Doc with mod fake; inside.\n#![forbid(unsafe_code)]\n\
        #[path = \"../../../crates/04-core/src/handle.rs\"] mod handle;\n\
        #[cfg(not(feature = \"solution\"))]\nmod turn;\n\
        #[cfg(feature = \"solution\")]\n#[path = \"../../../crates/04-core/src/turn.rs\"]\npub mod turn;\n\
        pub use handle::*; // mod commented;\nmod inline { fn f() {} }\n";
    let got: Vec<(String, Option<String>, Option<String>)> = mod_decls(shim)
        .into_iter()
        .map(|d| (d.name, d.path, d.cfg))
        .collect();
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        got,
        vec![
            (
                "handle".into(),
                s("../../../crates/04-core/src/handle.rs"),
                None
            ),
            ("turn".into(), None, s("not(feature=\"solution\")")),
            (
                "turn".into(),
                s("../../../crates/04-core/src/turn.rs"),
                s("feature=\"solution\"")
            ),
        ]
    );
}

fn check_exercise_crate(
    stage: &Stage,
    exercise_packages: &BTreeSet<String>,
    problems: &mut Vec<String>,
) {
    let root = root();
    let n = stage.number;
    let dir = root.join(&stage.dir);
    let src = dir.join("src");
    let reference_src = normalize(&root.join(&stage.reference).join("src"));
    let at = stage.dir.display().to_string();

    // Holes, tests and hints for every exercise.
    let tests_text: String = files_under(&dir.join("tests"), "rs")
        .iter()
        .map(|p| fs::read_to_string(p).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let hints_file = stage.hints_file();
    let hints = match fs::read_to_string(root.join(&hints_file)) {
        Ok(text) => hints::parse(&hints_file, &text).unwrap_or_else(|e| {
            problems.push(e.to_string());
            Vec::new()
        }),
        Err(e) => {
            problems.push(format!("{}: cannot read: {e}", hints_file.display()));
            Vec::new()
        }
    };
    for exercise in &stage.exercises {
        let m = exercise.id;
        let hole = format!("todo!(\"stage {n}, exercise {m}");
        let file_text = fs::read_to_string(root.join(&exercise.file)).unwrap_or_default();
        // An edited hole file is the learner's solution: its holes are gone on purpose.
        // An untouched one (its hash as recorded) must still hold them.
        match HoleFile::of(&root, exercise) {
            HoleFile::Edited { .. } => {}
            HoleFile::Unrecorded { hash } => problems.push(format!(
                "{}: exercise {m} records no hash of its hole file; add \
                 `hole = \"{hash}\"` if {} is the pristine hole",
                stage.course_toml().display(),
                exercise.file.display()
            )),
            HoleFile::Unreadable(e) => problems.push(format!("cannot read {e}")),
            HoleFile::Pristine if !has_hole(&file_text, n, m) => problems.push(format!(
                "{}: no hole for exercise {m} (expected `{hole}…`)",
                exercise.file.display()
            )),
            HoleFile::Pristine => {}
        }
        if !tests_text.contains(&format!("fn ex{m}_")) {
            problems.push(format!("{at}/tests: no test `fn ex{m}_…` for exercise {m}"));
        }
        let count = hints
            .iter()
            .find(|h| h.exercise == m)
            .map_or(0, |h| h.hints.len());
        if count < 2 {
            problems.push(format!(
                "{}: exercise {m} has {count} hint(s); at least two are needed",
                hints_file.display()
            ));
        }
    }

    // The shim: every #[path] into this stage's reference src/, and existing.
    let shim = fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    let decls = mod_decls(&shim);
    let mut taken: BTreeSet<PathBuf> = BTreeSet::new();
    for decl in &decls {
        let Some(path) = &decl.path else { continue };
        let target = normalize(&src.join(path));
        if !target.starts_with(&reference_src) {
            problems.push(format!(
                "{at}/src/lib.rs: mod {} takes `{path}`, outside {}/src",
                decl.name,
                stage.reference.display()
            ));
        } else if !target.is_file() {
            problems.push(format!(
                "{at}/src/lib.rs: mod {} takes `{path}`, which does not exist",
                decl.name
            ));
        }
        taken.insert(target);
    }

    // Every reference file is either shared by #[path] or cut into a hole file.
    for file in files_under(&reference_src, "rs") {
        if file == reference_src.join("lib.rs") || taken.contains(&file) {
            continue;
        }
        let relative = file.strip_prefix(&reference_src).unwrap_or(&file);
        if !src.join(relative).is_file() {
            problems.push(format!(
                "{}: neither taken by a #[path] in {at}/src/lib.rs nor cut into {at}/src/{}",
                shown(&file),
                relative.display()
            ));
        }
    }

    // Every hole module is also taken from the reference under the `solution` feature.
    for hole in files_under(&src, "rs") {
        if hole == src.join("lib.rs") {
            continue;
        }
        let name = hole
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let reference_file = hole
            .strip_prefix(&src)
            .map(|r| reference_src.join(r))
            .unwrap_or_default();
        let solved = decls.iter().any(|d| {
            d.name == name
                && d.cfg.as_deref() == Some("feature=\"solution\"")
                && d.path
                    .as_ref()
                    .is_some_and(|p| normalize(&src.join(p)) == reference_file)
        });
        if !solved {
            problems.push(format!(
                "{at}/src/lib.rs: hole module `{name}` is not taken from {} under \
                 #[cfg(feature = \"solution\")]",
                shown(&reference_file)
            ));
        }
    }

    // The manifest: no doctests, a `solution` feature, no other exercise as dependency.
    let manifest = match Manifest::read(&root, &stage.dir.join("Cargo.toml")) {
        Ok(manifest) => manifest,
        Err(e) => {
            problems.push(e.to_string());
            return;
        }
    };
    if manifest.lib.as_ref().and_then(|lib| lib.doctest) != Some(false) {
        problems.push(format!("{at}/Cargo.toml: [lib] needs `doctest = false`"));
    }
    if !manifest.features.iter().any(|f| f == "solution") {
        problems.push(format!("{at}/Cargo.toml: [features] needs `solution = []`"));
    }
    for (section, name, dependency) in manifest.all_dependencies() {
        if exercise_packages.contains(name)
            || dependency
                .path
                .as_deref()
                .is_some_and(|p| p.contains("exercises/"))
        {
            problems.push(format!(
                "{at}/Cargo.toml: [{section}] `{name}` depends on an exercise crate"
            ));
        }
    }
}

/// On a clean checkout every hole file is exactly what its `course.toml` records.
///
/// Ignored in a learner's run, where an edited hole is their solution; CI selects it
/// (`cargo test --test integrity -- --ignored`, see `.ci/run`) on a fresh clone, so a
/// hole edited without updating its hash is caught there. Run it yourself after editing
/// a hole: it prints the hash to record.
#[test]
#[ignore = "for a clean checkout (CI): a learner's edited holes are their solutions"]
fn every_hole_file_matches_its_recorded_hash() {
    let catalog = load_catalog();
    let mut problems = Vec::new();
    for stage in &catalog.stages {
        for exercise in &stage.exercises {
            let at = format!("{} exercise {}", stage.course_toml().display(), exercise.id);
            match HoleFile::of(&root(), exercise) {
                HoleFile::Pristine => {}
                HoleFile::Edited { hash } | HoleFile::Unrecorded { hash } => {
                    problems.push(format!(
                        "{at}: {} hashes to {hash}, not the recorded `hole = {:?}`; if \
                         the hole was changed on purpose, record `hole = \"{hash}\"`",
                        exercise.file.display(),
                        exercise.hole.as_deref().unwrap_or("(none)")
                    ));
                }
                HoleFile::Unreadable(e) => problems.push(format!("{at}: cannot read {e}")),
            }
        }
    }
    report("hole hashes", &problems);
}

#[test]
fn exercise_crates_are_well_formed() {
    let catalog = load_catalog();
    let mut packages: BTreeSet<String> = catalog.stages.iter().map(|s| s.package.clone()).collect();
    // A workspace dependency that points into exercises/ counts as an exercise too.
    let workspace = Manifest::read(&root(), Path::new("Cargo.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
        .workspace
        .expect("the root Cargo.toml has [workspace]");
    for (name, dependency) in &workspace.dependencies {
        if dependency
            .path
            .as_deref()
            .is_some_and(|p| p.contains("exercises/"))
        {
            packages.insert(name.clone());
        }
    }
    let mut problems = Vec::new();
    for stage in &catalog.stages {
        check_exercise_crate(stage, &packages, &mut problems);
    }
    report("exercise crates", &problems);
}

/// Every numbered crate is in `[workspace.dependencies]` by its path, so that the next
/// stage (and the suites) can name it as `name.workspace = true`.
#[test]
fn every_stage_crate_is_a_workspace_dependency() {
    let root = root();
    let workspace = Manifest::read(&root, Path::new("Cargo.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
        .workspace
        .expect("the root Cargo.toml has [workspace]");
    let paths: BTreeSet<String> = workspace
        .dependencies
        .values()
        .filter_map(|dependency| dependency.path.clone())
        .collect();
    let mut problems = Vec::new();
    let mut stages = 0;
    for entry in fs::read_dir(root.join("crates")).expect("crates/ exists") {
        let name = entry.expect("a readable entry").file_name();
        let name = name.to_string_lossy();
        if catalog::folder_number(&name).is_none() {
            continue;
        }
        stages += 1;
        let path = format!("crates/{name}");
        if !paths.contains(&path) {
            problems.push(format!(
                "Cargo.toml: [workspace.dependencies] has no entry with path = \"{path}\""
            ));
        }
    }
    assert!(stages > 0, "no numbered crate under crates/");
    report("workspace dependencies", &problems);
}

#[test]
fn every_stage_is_on_the_readmes_map() {
    let root = root();
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let mut problems = Vec::new();
    for entry in fs::read_dir(root.join("crates")).expect("crates/ exists") {
        let name = entry.expect("a readable entry").file_name();
        let name = name.to_string_lossy();
        if catalog::folder_number(&name).is_none() {
            continue;
        }
        // One row of the map names the crate, its chapter folder and its exercises.
        let row = readme
            .lines()
            .find(|line| line.starts_with('|') && line.contains(&format!("`crates/{name}`")));
        match row {
            None => problems.push(format!("README.md: the map has no row for crates/{name}")),
            Some(row) if !row.contains(&format!("`exercises/{name}`")) => problems.push(format!(
                "README.md: the row of crates/{name} does not name exercises/{name}"
            )),
            Some(_) => {}
        }
    }
    report("the README's map", &problems);
}

/// The capstone's chapter says the server uses the runtime "through one import, the
/// `oneloop` crate": its code names no stage crate, and its manifest depends on none
/// (its tests may, to build loops of their own).
#[test]
fn the_capstone_reaches_the_runtime_only_through_the_facade() {
    let root = root();
    let mut problems = Vec::new();
    for dir in [
        "crates/11-capstone/src",
        "exercises/11-capstone/src",
        "exercises/11-capstone/challenge",
    ] {
        let files = files_under(&root.join(dir), "rs");
        assert!(!files.is_empty(), "no Rust file under {dir}");
        for file in files {
            let text = fs::read_to_string(&file).expect("a readable source file");
            for (n, line) in text.lines().enumerate() {
                if line.contains("oneloop_") && !line.trim_start().starts_with("//") {
                    problems.push(format!("{}:{}: {}", shown(&file), n + 1, line.trim()));
                }
            }
        }
    }
    for manifest in [
        "crates/11-capstone/Cargo.toml",
        "exercises/11-capstone/Cargo.toml",
    ] {
        let text = fs::read_to_string(root.join(manifest)).expect("a readable manifest");
        let dependencies = text
            .split("\n[")
            .find(|table| table.starts_with("dependencies]"))
            .unwrap_or("");
        for line in dependencies.lines().skip(1) {
            if line.starts_with("oneloop-") {
                problems.push(format!("{manifest}: [dependencies] names {line}"));
            }
        }
    }
    report("the capstone's imports", &problems);
}

/// The introduction's list of stages: one numbered item per row of the README's map,
/// in order, each naming the stage's chapter title from `book/src/SUMMARY.md`.
#[test]
fn the_introduction_lists_every_stage_in_order() {
    let root = root();
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let intro = fs::read_to_string(root.join("book/src/intro.md")).expect("intro.md");
    let stages = readme
        .lines()
        .filter(|line| line.starts_with("| ") && line.contains("`crates/"))
        .count();
    let listed: Vec<usize> = intro
        .lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". **")?;
            rest.contains("** — ").then_some(())?;
            number.parse().ok()
        })
        .collect();
    assert!(stages > 0, "the README's map has no stage rows");
    assert_eq!(
        listed,
        (1..=stages).collect::<Vec<_>>(),
        "book/src/intro.md lists stages {listed:?}; the README's map has {stages}"
    );
}

// ---------------------------------------------------------------- challenges

/// The condition under which a shim compiles a stage's challenge file.
const CHALLENGE_CFG: &str = "all(feature=\"challenge\",not(feature=\"challenge-reference\"))";

/// The problems of one stage's challenge: it exists, its file holds its hole, its hash
/// is recorded, the shim and the manifest select it, and its hints and book page exist.
///
/// `cargo course verify` runs every challenge the catalog lists (solved by the
/// reference, failing on the untouched file), so a stage listed here is one it covers.
fn challenge_problems(stage: &Stage) -> Vec<String> {
    let root = root();
    let at = stage.course_toml().display().to_string();
    let n = stage.number;
    let Some(challenge) = &stage.challenge else {
        return vec![format!(
            "{at}: no [challenge] table: every stage has a challenge"
        )];
    };
    let mut problems = Vec::new();
    let text = fs::read_to_string(root.join(&challenge.file)).unwrap_or_default();
    match HoleFile::of_challenge(&root, challenge) {
        HoleFile::Edited { .. } => {}
        HoleFile::Unrecorded { hash } => problems.push(format!(
            "{at}: the challenge records no hash; add `hole = \"{hash}\"` to [challenge]"
        )),
        HoleFile::Unreadable(e) => problems.push(format!("cannot read {e}")),
        HoleFile::Pristine => {
            if !has_challenge_hole(&text, n) {
                problems.push(format!(
                    "{}: no `todo!(\"stage {n}, challenge…` in the challenge file",
                    challenge.file.display()
                ));
            }
            let pointer = format!("see chapter {}\"", challenge.section);
            if !text.contains(&pointer) {
                problems.push(format!(
                    "{}: its holes do not point to section {} (`{pointer}`)",
                    challenge.file.display(),
                    challenge.section
                ));
            }
            let reference = fs::read_to_string(root.join(&challenge.solution)).unwrap_or_default();
            problems.extend(stale_doc_lines(&text, &reference).into_iter().map(|line| {
                format!(
                    "{}: the doc line `{line}` is not in {}: the reference changed; copy its \
                     docs and signatures again",
                    challenge.file.display(),
                    challenge.solution.display()
                )
            }));
        }
    }
    if !root.join(&challenge.solution).is_file() {
        problems.push(format!(
            "{at}: the challenge replaces {}, which does not exist",
            challenge.solution.display()
        ));
    }

    // The shim: the reference's module unless the challenge is on, the file otherwise.
    let module = challenge
        .file
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let shim_path = stage.dir.join("src/lib.rs");
    let shim = fs::read_to_string(root.join(&shim_path)).unwrap_or_default();
    let squeezed: String = shim.split_whitespace().collect();
    let challenge_decl = format!(
        "#[cfg({CHALLENGE_CFG})]#[cfg_attr({CHALLENGE_CFG},path=\"../challenge/{module}.rs\")]"
    );
    let reference_decl = format!("#[cfg(not({CHALLENGE_CFG}))]#[path=");
    if !squeezed.contains(&challenge_decl) {
        problems.push(format!(
            "{}: mod {module} is not taken from challenge/{module}.rs under the challenge \
             feature",
            shim_path.display()
        ));
    }
    let reference = mod_decls(&shim).into_iter().any(|d| {
        d.name == module
            && d.cfg.as_deref() == Some(&format!("not({CHALLENGE_CFG})")[..])
            && d.path.as_ref().is_some_and(|p| {
                normalize(&root.join(&stage.dir).join("src").join(p))
                    == normalize(&root.join(&challenge.solution))
            })
    });
    if !reference || !squeezed.contains(&reference_decl) {
        problems.push(format!(
            "{}: mod {module} is not the reference's file when the challenge is off",
            shim_path.display()
        ));
    }

    // The manifest: `challenge` turns the holes into the reference; `challenge-reference`
    // (which `--all-features` turns on) puts the reference back for the challenge too.
    let manifest_text =
        fs::read_to_string(root.join(stage.dir.join("Cargo.toml"))).unwrap_or_default();
    for line in ["challenge = [\"solution\"]", "challenge-reference = []"] {
        if !manifest_text.lines().any(|l| l.trim() == line) {
            problems.push(format!(
                "{}/Cargo.toml: [features] needs `{line}`",
                at_dir(stage)
            ));
        }
    }

    // Hints and the exercises page.
    let hints_file = stage.hints_file();
    let count = fs::read_to_string(root.join(&hints_file))
        .ok()
        .and_then(|text| hints::parse(&hints_file, &text).ok())
        .and_then(|all| {
            all.into_iter()
                .find(|h| h.exercise == hints::CHALLENGE)
                .map(|h| h.hints.len())
        })
        .unwrap_or(0);
    if count < 2 {
        problems.push(format!(
            "{}: the challenge has {count} hint(s) under `## Challenge: …`; at least two",
            hints_file.display()
        ));
    }
    let page = stage
        .chapter
        .parent()
        .map(|p| p.join("exercises.md"))
        .unwrap_or_default();
    let page_text = fs::read_to_string(root.join(&page)).unwrap_or_default();
    let command = format!("cargo course test {n} --challenge");
    if !page_text.contains("## Challenge") || !page_text.contains(&command) {
        problems.push(format!(
            "{}: no `## Challenge` section giving `{command}`",
            page.display()
        ));
    }
    problems
}

/// The doc comment lines (`///`, `//!`) of a challenge file that its reference no
/// longer has. A challenge is a copy of the reference with its bodies taken out, so
/// its docs must be the reference's: a line found only here is the reference's old text.
fn stale_doc_lines(challenge: &str, reference: &str) -> Vec<String> {
    let docs = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|line| line.starts_with("///") || line.starts_with("//!"))
            .map(str::to_string)
            .collect()
    };
    let in_reference: BTreeSet<String> = docs(reference).into_iter().collect();
    docs(challenge)
        .into_iter()
        .filter(|line| !in_reference.contains(line))
        .collect()
}

#[test]
fn the_stale_doc_check_sees_a_line_the_reference_changed() {
    let reference =
        "/// Parks until woken.\n/// A one-shot wait keeps its fd.\nfn park() { body() }\n";
    let challenge =
        "/// Parks until woken.\n/// A one-shot wait drops its fd.\nfn park() { todo!() }\n";
    assert_eq!(
        stale_doc_lines(challenge, reference),
        ["/// A one-shot wait drops its fd."]
    );
    assert!(stale_doc_lines(reference, reference).is_empty());
}

fn at_dir(stage: &Stage) -> String {
    stage.dir.display().to_string()
}

#[test]
fn every_stage_has_a_challenge_that_its_shim_selects() {
    let catalog = load_catalog();
    let problems: Vec<String> = catalog.stages.iter().flat_map(challenge_problems).collect();
    report("challenges", &problems);
}

/// On a clean checkout every challenge file is exactly what its `course.toml` records
/// (ignored for the same reason as the holes' check: a learner's edit is their work).
#[test]
#[ignore = "for a clean checkout (CI): a learner's edited challenge is their solution"]
fn every_challenge_file_matches_its_recorded_hash() {
    let catalog = load_catalog();
    let mut problems = Vec::new();
    for stage in &catalog.stages {
        let Some(challenge) = &stage.challenge else {
            continue;
        };
        match HoleFile::of_challenge(&root(), challenge) {
            HoleFile::Pristine => {}
            HoleFile::Edited { hash } | HoleFile::Unrecorded { hash } => problems.push(format!(
                "{}: {} hashes to {hash}, not the recorded `hole = {:?}`; if the challenge \
                 was changed on purpose, record `hole = \"{hash}\"`",
                stage.course_toml().display(),
                challenge.file.display(),
                challenge.hole.as_deref().unwrap_or("(none)")
            )),
            HoleFile::Unreadable(e) => problems.push(format!("cannot read {e}")),
        }
    }
    report("challenge hashes", &problems);
}

// ---------------------------------------------------------------- hints

/// What is wrong with `hint` as the first hint of an exercise, if anything.
///
/// The first hint sends the learner back to the reading: it ends with a question, or
/// names the section or chapter to reread. It never lists the calls to make: more than
/// two code spans that look like calls (`name(…)`) is a list of calls.
fn first_hint_problem(hint: &str) -> Option<String> {
    let text = hint.trim();
    let lower = text.to_lowercase();
    let names_a_place = ["section ", "chapter "].iter().any(|word| {
        lower.match_indices(word).any(|(at, w)| {
            lower[at + w.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
    });
    let asks = text.ends_with('?');
    let calls = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.contains('(') && !span.starts_with("todo!"))
        .count();
    if !asks && !names_a_place {
        Some("neither ends with a question mark nor names a section or chapter".into())
    } else if calls > 2 {
        Some(format!(
            "lists {calls} calls; a first hint asks or points, it does not list"
        ))
    } else {
        None
    }
}

#[test]
fn first_hints_ask_or_point_to_the_reading() {
    let catalog = load_catalog();
    let mut problems = Vec::new();
    for stage in &catalog.stages {
        let file = stage.hints_file();
        let Ok(text) = fs::read_to_string(root().join(&file)) else {
            problems.push(format!("{}: cannot read", file.display()));
            continue;
        };
        let all = match hints::parse(&file, &text) {
            Ok(all) => all,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        for exercise in &all {
            let Some(first) = exercise.hints.first() else {
                continue;
            };
            if let Some(problem) = first_hint_problem(first) {
                let name = if exercise.exercise == hints::CHALLENGE {
                    "the challenge".to_string()
                } else {
                    format!("exercise {}", exercise.exercise)
                };
                problems.push(format!(
                    "{}:{}: the first hint of {name} {problem}",
                    file.display(),
                    exercise.line
                ));
            }
        }
    }
    report("first hints", &problems);
}

#[test]
fn the_first_hint_check_sees_a_bad_hint() {
    // A list of calls, with no question and no section: what a first hint must not be.
    let list = "The helpers you need are `self.core.begin_turn()`, `self.park(timeout)?`, \
                `self.core.ready.pop()` and `self.core.end_turn(turn)`.";
    assert!(first_hint_problem(list).is_some());
    // A statement that neither asks nor points.
    assert!(first_hint_problem("Think about the queue.").is_some());
    // A section named, but the calls listed all the same.
    assert!(first_hint_problem(&format!("Reread section 4.2. {list}")).is_some());
    // The good kinds.
    assert_eq!(
        first_hint_problem("Which handles may this turn run, and when is that fixed?"),
        None
    );
    assert_eq!(
        first_hint_problem("Reread section 4.2: the snapshot is taken once per turn."),
        None
    );
    assert_eq!(
        first_hint_problem("Chapter 9 says where a cancel lands. Where is it here?"),
        None
    );
    // "section" with no number is not a pointer.
    assert!(first_hint_problem("See the section on turns.").is_some());
}

/// The `tests/*.rs` files of the package at `dir` that no test binary compiles: with
/// `autotests = false`, a file is compiled only as a `[[test]]` target's root or as a
/// `#[path = "file.rs"]` module of one, and a file that is neither would never run.
fn uncompiled_test_files(dir: &Path) -> Vec<String> {
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    if !manifest
        .lines()
        .any(|line| line.trim() == "autotests = false")
    {
        return Vec::new();
    }
    let roots: Vec<String> = manifest
        .lines()
        .filter_map(|line| line.trim().strip_prefix("path = \"tests/"))
        .filter_map(|rest| rest.strip_suffix('"'))
        .map(str::to_string)
        .collect();
    let mut compiled: BTreeSet<String> = roots.iter().cloned().collect();
    for root_file in &roots {
        let text = fs::read_to_string(dir.join("tests").join(root_file)).unwrap_or_default();
        compiled.extend(
            text.lines()
                .filter_map(|line| line.trim().strip_prefix("#[path = \""))
                .filter_map(|rest| rest.strip_suffix("\"]"))
                .map(str::to_string),
        );
    }
    let Ok(entries) = fs::read_dir(dir.join("tests")) else {
        return Vec::new();
    };
    let mut missing: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs") && !compiled.contains(name))
        .map(|name| format!("{}/tests/{name}", shown(dir)))
        .collect();
    missing.sort();
    missing
}

#[test]
fn every_test_file_is_compiled_into_a_test_binary() {
    let mut problems = Vec::new();
    for parent in ["crates", "exercises"] {
        let Ok(entries) = fs::read_dir(root().join(parent)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            for file in uncompiled_test_files(&entry.path()) {
                problems.push(format!(
                    "{file}: not a [[test]] root nor a `#[path]` module of one, so it never runs"
                ));
            }
        }
    }
    report("test files no binary compiles", &problems);
}

#[test]
fn the_uncompiled_test_file_check_sees_a_file_left_out() {
    let dir = std::env::temp_dir().join(format!("oneloop-uncompiled-{}", std::process::id()));
    fs::create_dir_all(dir.join("tests")).expect("scratch dir");
    fs::write(
        dir.join("Cargo.toml"),
        "[package]\nautotests = false\n\n[[test]]\nname = \"suite\"\npath = \"tests/suite.rs\"\n",
    )
    .expect("manifest");
    fs::write(dir.join("tests/suite.rs"), "#[path = \"a.rs\"]\nmod a;\n").expect("root");
    fs::write(dir.join("tests/a.rs"), "").expect("a");
    fs::write(dir.join("tests/b.rs"), "").expect("b");
    let missing = uncompiled_test_files(&dir);
    fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0].ends_with("tests/b.rs"), "{missing:?}");
}
