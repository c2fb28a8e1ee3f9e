//! A parser for the small piece of TOML that `course.toml` files use.
//!
//! Supported, one per line: `key = "string"` (with `\"`, `\\`, `\n`, `\t` escapes),
//! `key = 123`, `key = [1, 2]` (a one-line list of integers), `[[table]]` headers that open a new entry of an array of tables,
//! blank lines and `#` comments (also after a value). Anything else is an error that
//! names the file and line, so a typo in a catalog is found where it was made.

use std::fmt;
use std::path::{Path, PathBuf};

/// A value: the subset has only strings, non-negative integers and lists of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A basic string, escapes already resolved.
    Str(String),
    /// A non-negative integer.
    Int(u64),
    /// A one-line list of non-negative integers, `[1, 2]` (`[]` is empty).
    Ints(Vec<u64>),
}

/// One `key = value` line, with the line it came from (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key, as written.
    pub key: String,
    /// The parsed value.
    pub value: Value,
    /// The 1-based line number.
    pub line: usize,
}

/// A group of entries: the top of the file, or one `[[name]]` table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// The table's name (empty for the top of the file).
    pub name: String,
    /// The line of the `[[name]]` header (0 for the top of the file).
    pub line: usize,
    /// The entries in file order.
    pub entries: Vec<Entry>,
}

impl Table {
    /// The entry for `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }
}

/// A parsed document: the top-level entries and the `[[…]]` tables in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Document {
    /// Entries before the first table header.
    pub top: Table,
    /// Every `[[name]]` table, in file order.
    pub tables: Vec<Table>,
}

/// An error located at `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The file being parsed.
    pub file: PathBuf,
    /// The 1-based line (0 when the error is about the whole file).
    pub line: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses `text`; `file` only names the source in error messages.
pub fn parse(file: &Path, text: &str) -> Result<Document, ParseError> {
    let mut doc = Document::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let error = |message: String| ParseError {
            file: file.to_path_buf(),
            line,
            message,
        };
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("[[") {
            let name = strip_comment(rest)
                .strip_suffix("]]")
                .ok_or_else(|| error(format!("a table header must end with `]]`: `{trimmed}`")))?
                .trim();
            if !is_bare_key(name) {
                return Err(error(format!("`{name}` is not a valid table name")));
            }
            doc.tables.push(Table {
                name: name.to_string(),
                line,
                entries: Vec::new(),
            });
            continue;
        }
        if trimmed.starts_with('[') {
            return Err(error(format!(
                "only `[[table]]` headers are supported here, not `{trimmed}`"
            )));
        }
        let (key, rest) = trimmed
            .split_once('=')
            .ok_or_else(|| error(format!("expected `key = value`, found `{trimmed}`")))?;
        let key = key.trim();
        if !is_bare_key(key) {
            return Err(error(format!(
                "`{key}` is not a valid key (letters, digits, `_` and `-` only)"
            )));
        }
        let value = parse_value(rest.trim()).map_err(|m| error(format!("`{key}`: {m}")))?;
        let table = doc.tables.last_mut().unwrap_or(&mut doc.top);
        if let Some(previous) = table.get(key) {
            return Err(error(format!(
                "`{key}` is set twice (first on line {})",
                previous.line
            )));
        }
        table.entries.push(Entry {
            key: key.to_string(),
            value,
            line,
        });
    }
    Ok(doc)
}

fn is_bare_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Drops a trailing `# comment` from text that holds no string.
fn strip_comment(text: &str) -> &str {
    text.split_once('#')
        .map_or(text, |(before, _)| before)
        .trim()
}

/// Parses what follows `=`: a basic string or an integer, then an optional comment.
fn parse_value(text: &str) -> Result<Value, String> {
    if let Some(body) = text.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = body.chars();
        loop {
            match chars.next() {
                None => return Err("the string is not closed with `\"`".to_string()),
                Some('"') => break,
                Some('\\') => match chars.next() {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => return Err(format!("unsupported escape `\\{other}`")),
                    None => return Err("the string ends inside an escape".to_string()),
                },
                Some(c) => out.push(c),
            }
        }
        let after = chars.as_str().trim();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(format!("unexpected `{after}` after the string"));
        }
        return Ok(Value::Str(out));
    }
    let number = strip_comment(text);
    if number.is_empty() {
        return Err("the value is missing".to_string());
    }
    if let Some(body) = number.strip_prefix('[') {
        let body = body
            .strip_suffix(']')
            .ok_or_else(|| format!("a list must close with `]` on its line: `{number}`"))?;
        let items: Vec<&str> = body.split(',').map(str::trim).collect();
        let items = match items.as_slice() {
            [""] => &[][..],
            [rest @ .., ""] => rest,
            all => all,
        };
        return items
            .iter()
            .map(|item| {
                integer(item).map_err(|_| format!("a list holds only integers, not `{item}`"))
            })
            .collect::<Result<Vec<u64>, String>>()
            .map(Value::Ints);
    }
    integer(number).map(Value::Int).map_err(|_| {
        format!("expected a \"string\", a non-negative integer or a list of them, found `{number}`")
    })
}

fn integer(text: &str) -> Result<u64, std::num::ParseIntError> {
    text.replace('_', "").parse::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Document, ParseError> {
        parse(Path::new("course.toml"), text)
    }

    #[test]
    fn reads_top_entries_and_tables() {
        let doc = parse_str(
            "# a catalog\nstage = 1\ntitle = \"Coroutines: \\\"values\\\"\"  # trailing\n\n\
             [[exercise]]\nid = 2\nfile = \"a#b.rs\"\n[[exercise]] # second\nid = 3\n",
        )
        .unwrap();
        assert_eq!(doc.top.get("stage").unwrap().value, Value::Int(1));
        assert_eq!(
            doc.top.get("title").unwrap().value,
            Value::Str("Coroutines: \"values\"".into())
        );
        assert_eq!(doc.tables.len(), 2);
        assert_eq!(doc.tables[0].name, "exercise");
        assert_eq!(doc.tables[0].line, 5);
        assert_eq!(
            doc.tables[0].get("file").unwrap().value,
            Value::Str("a#b.rs".into())
        );
        assert_eq!(doc.tables[1].get("id").unwrap().line, 9);
    }

    #[test]
    fn reads_lists_of_integers() {
        let doc = parse_str("a = [2]\nb = []\nc = [1, 3, ] # two\n").unwrap();
        assert_eq!(doc.top.get("a").unwrap().value, Value::Ints(vec![2]));
        assert_eq!(doc.top.get("b").unwrap().value, Value::Ints(vec![]));
        assert_eq!(doc.top.get("c").unwrap().value, Value::Ints(vec![1, 3]));
    }

    #[test]
    fn errors_name_file_and_line() {
        let err = parse_str("stage = 1\ntitle = \"open\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "course.toml:2: `title`: the string is not closed with `\"`"
        );
    }

    #[test]
    fn rejects_what_the_subset_lacks() {
        let cases = [
            ("[package]\n", "only `[[table]]` headers"),
            ("list = [1, \"a\"]\n", "a list holds only integers"),
            ("list = [1, 2\n", "a list must close with `]`"),
            ("n = -1\n", "expected a \"string\", a non-negative integer"),
            ("just words\n", "expected `key = value`"),
            ("a.b = 1\n", "not a valid key"),
            ("a = 1\na = 2\n", "set twice (first on line 1)"),
            ("a = \"x\" y\n", "unexpected `y` after the string"),
            ("a = \n", "the value is missing"),
            ("[[exercise]\n", "must end with `]]`"),
        ];
        for (text, expected) in cases {
            let err = parse_str(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?} gave {err:?}");
        }
    }
}
