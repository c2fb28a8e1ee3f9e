//! Each exercise crate's shim re-exports exactly its reference crate's public items.
//!
//! An exercise crate takes the reference crate's files by `#[path]` and has its own
//! `src/lib.rs`, so the two crate roots could drift: a name added to a stage and
//! forgotten in the shim would be missing from the learner's crate. This suite reads
//! the `pub use` and `pub mod` items of both roots with a small line reader (the roots
//! are plain lists of items; no parser is needed), expands every `a::{b, c::{d}}` into
//! its leaf paths, and compares the two sets.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The public items of a crate root: every leaf path of its `pub use` items, and
/// `mod NAME` for each `pub mod NAME;`. `pub(crate)` items are not public.
fn public_items(source: &str) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    let mut statement: Option<String> = None;
    for line in source.lines() {
        let line = line.trim();
        if let Some(open) = statement.as_mut() {
            open.push(' ');
            open.push_str(line);
        } else if let Some(rest) = line.strip_prefix("pub use ") {
            statement = Some(rest.to_owned());
        } else if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|r| r.strip_suffix(';'))
        {
            items.insert(format!("mod {name}"));
        }
        if let Some(done) = statement.as_ref().and_then(|s| s.strip_suffix(';')) {
            expand("", done, &mut items);
            statement = None;
        }
    }
    assert!(
        statement.is_none(),
        "a `pub use` with no `;`: {statement:?}"
    );
    items
}

/// Adds the leaf paths of the use tree `tree`, under `prefix`, to `out`.
fn expand(prefix: &str, tree: &str, out: &mut BTreeSet<String>) {
    let tree = tree.trim();
    match tree.find('{') {
        None => {
            let leaf: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
            out.insert(format!("{prefix}{leaf}"));
        }
        Some(open) => {
            let close = tree.rfind('}').expect("a `{` is closed");
            let head = format!("{prefix}{}", tree[..open].trim());
            for part in split_top_level(&tree[open + 1..close]) {
                expand(&head, part, out);
            }
        }
    }
}

/// Splits `list` at the commas outside any braces, dropping empty parts.
fn split_top_level(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (at, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

#[test]
fn the_reader_expands_nested_groups_and_skips_crate_private_items() {
    let root = "\
//! docs
pub use a::{B, c::{D, e}};
pub use f::G;
pub(crate) use h::I;
pub use j::{
    K, L,
};
#[path = \"x.rs\"]
pub mod prelude;
mod private;
";
    let items: Vec<_> = public_items(root).into_iter().collect();
    assert_eq!(
        items,
        [
            "a::B",
            "a::c::D",
            "a::c::e",
            "f::G",
            "j::K",
            "j::L",
            "mod prelude"
        ]
    );
}

#[test]
fn each_exercise_shim_re_exports_exactly_its_reference_crates_items() {
    let exercises = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises");
    let mut checked = Vec::new();
    let mut mismatches = Vec::new();
    for entry in fs::read_dir(&exercises).expect("exercises/ is there") {
        let name = entry.expect("a readable entry").file_name();
        let name = name.to_str().expect("a UTF-8 folder name").to_owned();
        let read = |path: &Path| {
            fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let shim = public_items(&read(&exercises.join(&name).join("src/lib.rs")));
        let reference_root = exercises.join("../crates").join(&name).join("src/lib.rs");
        let reference = public_items(&read(&reference_root));
        assert!(!reference.is_empty(), "{name}: no public items read");
        let missing: Vec<_> = reference.difference(&shim).collect();
        let extra: Vec<_> = shim.difference(&reference).collect();
        if !missing.is_empty() || !extra.is_empty() {
            mismatches.push(format!(
                "{name}: missing {missing:?}, not in the reference {extra:?}"
            ));
        }
        checked.push(name);
    }
    assert!(checked.len() >= 9, "exercise crates found: {checked:?}");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
