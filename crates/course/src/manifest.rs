//! Reading the one fact the course needs from a crate's `Cargo.toml`: its package name.
//!
//! Cargo manifests use far more TOML than the course's subset, so this reads lines: the
//! `name = "…"` line inside the `[package]` section.

use std::fs;
use std::path::Path;

use crate::toml_subset::ParseError;

/// The `name` under `[package]` in the manifest at `path`.
pub fn package_name(path: &Path) -> Result<String, ParseError> {
    let text = fs::read_to_string(path).map_err(|e| ParseError {
        file: path.to_path_buf(),
        line: 0,
        message: format!("cannot read: {e}"),
    })?;
    package_name_in(path, &text)
}

/// [`package_name`] on text already read; `path` names it in errors.
pub fn package_name_in(path: &Path, text: &str) -> Result<String, ParseError> {
    let mut in_package = false;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "name" {
            continue;
        }
        let value = value.trim();
        return value
            .strip_prefix('"')
            .and_then(|v| v.split_once('"'))
            .map(|(name, _)| name.to_string())
            .ok_or_else(|| ParseError {
                file: path.to_path_buf(),
                line: index + 1,
                message: format!("expected name = \"…\", found `{line}`"),
            });
    }
    Err(ParseError {
        file: path.to_path_buf(),
        line: 0,
        message: "no `name = \"…\"` under [package]".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_name_under_package_only() {
        let text = "[workspace]\nname = \"no\"\n\n[package]\nversion.workspace = true\n\
                    name = \"ex01-coroutine\" # the package\n[dependencies]\nname = \"no\"\n";
        assert_eq!(
            package_name_in(Path::new("Cargo.toml"), text).unwrap(),
            "ex01-coroutine"
        );
    }

    #[test]
    fn says_when_the_name_is_missing() {
        let err =
            package_name_in(Path::new("x/Cargo.toml"), "[package]\nversion = \"1\"\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x/Cargo.toml: no `name = \"…\"` under [package]"
        );
    }
}
