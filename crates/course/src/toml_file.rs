//! The one way the course reads TOML: `toml`'s parser gives a tree whose every key and
//! value knows where it was written; [`Table`] reads typed fields from it, with errors
//! that name the file, the line and the key.
//!
//! `course.toml` and the crates' `Cargo.toml` both go through [`parse`]; the structs they
//! are read into are the schemas ([`crate::catalog::CourseToml`],
//! [`crate::manifest::Manifest`]).
//!
//! Why not `serde`'s derive: its proc-macro chain (`syn`, `quote`, `serde_derive`)
//! compiles before anything else can, on the critical path of a cold `cargo course`.
//! Measured on two cores, it added 24 to 29 s to that first build, where the parser
//! alone adds 3 to 7 s; nothing else in the course's build needs `syn`. The spanned tree
//! also gives better errors for the few fields read here.

use std::fmt;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

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
            Some(key) => write!(f, ": `{key}`: {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// A parsed TOML file: its text, its name for errors, and its tree.
#[derive(Debug)]
pub struct Document<'t> {
    file: PathBuf,
    text: &'t str,
    root: Spanned<DeTable<'t>>,
}

/// Reads `root/relative`; `text` receives the file's contents, which the document
/// borrows. Errors name `relative`.
pub fn read<'t>(
    root: &Path,
    relative: &Path,
    text: &'t mut String,
) -> Result<Document<'t>, ParseError> {
    *text = fs::read_to_string(root.join(relative))
        .map_err(|e| ParseError::new(relative, 0, format!("cannot read: {e}")))?;
    parse(relative, text)
}

/// Parses `text`; `file` only names the source in errors.
pub fn parse<'t>(file: &Path, text: &'t str) -> Result<Document<'t>, ParseError> {
    let root = DeTable::parse(text).map_err(|e| ParseError {
        file: file.to_path_buf(),
        line: e.span().map_or(0, |span| line_of(text, span.start)),
        key: None,
        message: e.message().trim().to_string(),
    })?;
    Ok(Document {
        file: file.to_path_buf(),
        text,
        root,
    })
}

impl<'t> Document<'t> {
    /// The top-level table.
    pub fn root(&self) -> Table<'_, 't> {
        Table {
            doc: self,
            table: self.root.get_ref(),
            span: self.root.span(),
            name: String::new(),
            in_array: false,
        }
    }

    /// An error about `key` at byte `span.start`.
    pub fn error(&self, span: Range<usize>, key: &str, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.clone(),
            line: line_of(self.text, span.start),
            key: Some(key.to_string()),
            message: message.into(),
        }
    }
}

/// One table of a document, read field by field.
#[derive(Debug, Clone)]
pub struct Table<'d, 't> {
    doc: &'d Document<'t>,
    table: &'d DeTable<'t>,
    span: Range<usize>,
    /// The dotted path of the table (empty at the top), for messages.
    name: String,
    /// Whether this is one entry of an array of tables (`[[name]]`).
    in_array: bool,
}

impl<'d, 't> Table<'d, 't> {
    fn key_name(&self, key: &str) -> String {
        if self.name.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.name)
        }
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&'d Spanned<DeValue<'t>>> {
        self.table.get(key)
    }

    /// An error about `key` of this table, at `span`.
    pub fn error(&self, span: Range<usize>, key: &str, message: impl Into<String>) -> ParseError {
        self.doc.error(span, &self.key_name(key), message)
    }

    /// Fails on the first key not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<(), ParseError> {
        match self
            .table
            .iter()
            .find(|(key, _)| !allowed.contains(&key.get_ref().as_ref()))
        {
            Some((key, _)) => Err(self.error(
                key.span(),
                key.get_ref(),
                format!("unknown key (expected one of: {})", allowed.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn required(&self, key: &str) -> Result<&'d Spanned<DeValue<'t>>, ParseError> {
        self.get(key).ok_or_else(|| {
            let place = match (self.name.is_empty(), self.in_array) {
                (true, _) => "at the top of the file".to_string(),
                (false, true) => format!("in this [[{}]] table", self.name),
                (false, false) => format!("in the [{}] table", self.name),
            };
            self.error(self.span.clone(), key, format!("missing {place}"))
        })
    }

    fn wrong(&self, key: &str, value: &Spanned<DeValue<'t>>, expected: &str) -> ParseError {
        self.error(
            value.span(),
            key,
            format!("expected {expected}, found {}", value.get_ref().type_str()),
        )
    }

    /// The string `key`, if present.
    pub fn opt_string(&self, key: &str) -> Result<Option<Spanned<String>>, ParseError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        match value.get_ref().as_str() {
            Some(s) => Ok(Some(Spanned::new(value.span(), s.to_string()))),
            None => Err(self.wrong(key, value, "a \"string\"")),
        }
    }

    /// The string `key`, which must be present and not blank.
    pub fn string(&self, key: &str) -> Result<Spanned<String>, ParseError> {
        let value = self.required(key)?;
        let s = self
            .opt_string(key)?
            .ok_or_else(|| self.wrong(key, value, "a \"string\""))?;
        if s.get_ref().trim().is_empty() {
            return Err(self.error(s.span(), key, "is empty"));
        }
        Ok(s)
    }

    /// The boolean `key`, if present.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, ParseError> {
        self.get(key)
            .map(|value| {
                value
                    .get_ref()
                    .as_bool()
                    .ok_or_else(|| self.wrong(key, value, "true or false"))
            })
            .transpose()
    }

    fn number(&self, key: &str, value: &Spanned<DeValue<'t>>) -> Result<u32, ParseError> {
        let integer = value
            .get_ref()
            .as_integer()
            .ok_or_else(|| self.wrong(key, value, "a number, without quotes"))?;
        let digits = integer.as_str().replace('_', "");
        u32::from_str_radix(&digits, integer.radix()).map_err(|_| {
            self.error(
                value.span(),
                key,
                format!("{integer} is not a small number"),
            )
        })
    }

    /// The non-negative integer `key`, which must be present.
    pub fn int(&self, key: &str) -> Result<Spanned<u32>, ParseError> {
        let value = self.required(key)?;
        Ok(Spanned::new(value.span(), self.number(key, value)?))
    }

    /// The list of non-negative integers `key`, if present (`[1, 2]`).
    pub fn opt_ints(&self, key: &str) -> Result<Option<Spanned<Vec<u32>>>, ParseError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let items = value
            .get_ref()
            .as_array()
            .ok_or_else(|| self.wrong(key, value, "a list of numbers, e.g. [2]"))?;
        let numbers = items
            .iter()
            .map(|item| self.number(key, item))
            .collect::<Result<Vec<u32>, ParseError>>()?;
        Ok(Some(Spanned::new(value.span(), numbers)))
    }

    /// The table `key`, if present.
    pub fn opt_table(&self, key: &str) -> Result<Option<Table<'d, 't>>, ParseError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        match value.get_ref().as_table() {
            Some(table) => Ok(Some(Table {
                doc: self.doc,
                table,
                span: value.span(),
                name: self.key_name(key),
                in_array: false,
            })),
            None => Err(self.wrong(key, value, "a table")),
        }
    }

    /// The array of tables `key` (`[[key]]`), empty if absent.
    pub fn tables(&self, key: &str) -> Result<Vec<Table<'d, 't>>, ParseError> {
        let Some(value) = self.get(key) else {
            return Ok(Vec::new());
        };
        let items = value
            .get_ref()
            .as_array()
            .ok_or_else(|| self.wrong(key, value, &format!("[[{key}]] tables")))?;
        items
            .iter()
            .map(|item| match item.get_ref().as_table() {
                Some(table) => Ok(Table {
                    doc: self.doc,
                    table,
                    span: item.span(),
                    name: self.key_name(key),
                    in_array: true,
                }),
                None => Err(self.wrong(key, item, &format!("[[{key}]] tables"))),
            })
            .collect()
    }

    /// Every key of this table, with its value.
    pub fn entries(&self) -> impl Iterator<Item = (&'d str, &'d Spanned<DeValue<'t>>)> {
        self.table
            .iter()
            .map(|(key, value)| (key.get_ref().as_ref(), value))
    }
}

/// The 1-based line holding byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `title` and `[[item]]` tables with an `id` each, as a schema would.
    fn read(text: &str) -> Result<(String, Vec<u32>), ParseError> {
        let doc = parse(Path::new("course.toml"), text)?;
        let root = doc.root();
        root.only(&["title", "item"])?;
        let title = root.string("title")?.into_inner();
        let ids = root
            .tables("item")?
            .iter()
            .map(|item| {
                item.only(&["id"])?;
                Ok(*item.int("id")?.get_ref())
            })
            .collect::<Result<Vec<u32>, ParseError>>()?;
        Ok((title, ids))
    }

    fn error(text: &str) -> String {
        read(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_typed_fields() {
        assert_eq!(
            read("title = \"a\" # comment\n[[item]]\nid = 1\n[[item]]\nid = 0x2\n").unwrap(),
            ("a".to_string(), vec![1, 2])
        );
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        assert_eq!(
            error("title = \"a\"\n\n[[item]]\nid = \"one\"\n"),
            "course.toml:4: `item.id`: expected a number, without quotes, found string"
        );
        assert_eq!(
            error("title = \"a\"\n[[item]]\nid = 1\nname = \"x\"\n"),
            "course.toml:4: `item.name`: unknown key (expected one of: id)"
        );
        assert_eq!(
            error("[[item]]\nid = 1\n"),
            "course.toml:1: `title`: missing at the top of the file"
        );
        assert_eq!(
            error("title = \"a\"\n[[item]]\nid = -1\n"),
            "course.toml:3: `item.id`: -1 is not a small number"
        );
        assert!(error("title = \"open\n").starts_with("course.toml:1: "));
    }
}
