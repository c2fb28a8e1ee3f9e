//! The one way the course reads TOML: a file into a typed struct, with errors that name
//! the file, the line and the key.
//!
//! `course.toml` and the crates' `Cargo.toml` both go through [`read`]; the struct they
//! are read into is the schema (see [`crate::catalog`] and [`crate::manifest`]).

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// An error located in a file: at a line, and at a key when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The file being read, as the caller named it.
    pub file: PathBuf,
    /// The 1-based line (0 when the error is about the whole file).
    pub line: usize,
    /// The key the error is about, when it is known.
    pub key: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl ParseError {
    /// An error about `file` at `line` (0: the whole file), with no key.
    pub fn new(file: &Path, line: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            file: file.to_path_buf(),
            line,
            key: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        match &self.key {
            // The parser's own message may already name the key.
            Some(key) if !self.message.contains(&format!("`{key}`")) => {
                write!(f, ": `{key}`: {}", self.message)
            }
            _ => write!(f, ": {}", self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Reads `root/relative` into a `T`; errors name `relative`.
pub fn read<T: DeserializeOwned>(root: &Path, relative: &Path) -> Result<T, ParseError> {
    let text = fs::read_to_string(root.join(relative))
        .map_err(|e| ParseError::new(relative, 0, format!("cannot read: {e}")))?;
    parse(relative, &text)
}

/// Parses `text` into a `T`; `file` only names the source in errors.
pub fn parse<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, ParseError> {
    toml::from_str(text).map_err(|e| {
        let message = e.message().trim().to_string();
        let (line, key) = match e.span() {
            Some(span) => place(text, span.start),
            None => (0, None),
        };
        // "unknown field `x`" and "missing field `x`" name their key; keep that one.
        let key = quoted(&message).or(key);
        ParseError {
            file: file.to_path_buf(),
            line,
            key,
            message,
        }
    })
}

/// An error about `key`, at byte `at` of `text` (the file `file` holds).
pub fn error_at(
    file: &Path,
    text: &str,
    at: usize,
    key: &str,
    message: impl Into<String>,
) -> ParseError {
    ParseError {
        file: file.to_path_buf(),
        line: place(text, at).0,
        key: Some(key.to_string()),
        message: message.into(),
    }
}

/// The 1-based line holding byte `at`, and the key assigned on that line, if any.
fn place(text: &str, at: usize) -> (usize, Option<String>) {
    let at = at.min(text.len());
    let line = text[..at].matches('\n').count() + 1;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let this = text[start..end].trim();
    let key = if this.starts_with('[') {
        // A table header: the key is the table's name.
        Some(this.trim_matches(['[', ']']).trim().to_string())
    } else {
        this.split_once('=')
            .map(|(key, _)| key.trim().to_string())
            .filter(|key| !key.is_empty())
    };
    (line, key)
}

/// The first word in backquotes of `message`.
fn quoted(message: &str) -> Option<String> {
    let (_, rest) = message.split_once('`')?;
    let (word, _) = rest.split_once('`')?;
    Some(word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // read only to be checked
    struct Doc {
        title: String,
        #[serde(default)]
        item: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        id: u32,
    }

    fn error(text: &str) -> String {
        parse::<Doc>(Path::new("course.toml"), text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        assert_eq!(
            error("title = \"a\"\n\n[[item]]\nid = \"one\"\n"),
            "course.toml:4: `id`: invalid type: string \"one\", expected u32"
        );
        assert!(
            error("title = \"a\"\n[[item]]\nid = 1\nname = \"x\"\n")
                .starts_with("course.toml:4: unknown field `name`, expected `id`"),
        );
        assert!(error("[[item]]\nid = 1\n").contains("missing field `title`"));
        assert!(error("title = \"open\n").starts_with("course.toml:1: "));
    }
}
