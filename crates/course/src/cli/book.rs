//! `cargo course book [--open]`: build the book with the pinned mdBook, warnings fatal.
//!
//! mdBook logs a missing `{{#include}}` and still exits 0, so the build is judged by
//! its output: any WARN or ERROR line fails it.

use std::env;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use super::CliError;

const VERSION: &str = "mdbook v0.5.4";
const INSTALL: [&str; 8] = [
    "install",
    "mdbook",
    "--locked",
    "--version",
    "0.5.4",
    "--no-default-features",
    "--features",
    "search",
];

pub(crate) fn run(root: &Path, args: &[String]) -> Result<ExitCode, CliError> {
    let open = match args {
        [] => false,
        [flag] if flag == "--open" => true,
        _ => {
            return Err(CliError::misuse(format!(
                "`cargo course book` takes only `--open`, got `{}`",
                args.join(" ")
            )));
        }
    };
    let mdbook = ensure_mdbook()?;
    let mut command = Command::new(&mdbook);
    command.arg("build").current_dir(root.join("book"));
    if open {
        command.arg("--open");
    }
    let output = command
        .output()
        .map_err(|e| CliError::failed(format!("could not run {}: {e}", mdbook.display())))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let bad: Vec<&str> = text.lines().filter(|l| is_warning(l)).collect();
    if !bad.is_empty() {
        for line in &bad {
            errln!("{line}");
        }
        return Err(CliError::failed(format!(
            "the book built with {} warning or error line(s) (listed above); \
             mdBook exits 0 on a missing include, so these count as failures",
            bad.len()
        )));
    }
    if !output.status.success() {
        err!("{text}");
        return Err(CliError::failed(format!(
            "mdbook build failed ({})",
            output.status
        )));
    }
    outln!("book built in book/build/ (open book/build/index.html)");
    Ok(ExitCode::SUCCESS)
}

/// A log line at WARN or ERROR level, whatever mdBook's log format.
fn is_warning(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word == "WARN" || word == "ERROR")
}

/// An mdbook that says exactly `mdbook v0.5.4`, installed first if needed.
fn ensure_mdbook() -> Result<PathBuf, CliError> {
    let cargo_bin = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| home.join("bin").join("mdbook"));
    let candidates: Vec<PathBuf> = std::iter::once(PathBuf::from("mdbook"))
        .chain(cargo_bin)
        .collect();
    for candidate in &candidates {
        if version(candidate).as_deref() == Some(VERSION) {
            return Ok(candidate.clone());
        }
    }
    let found = version(&candidates[0]).unwrap_or_else(|| "none on PATH".to_string());
    errln!(
        "The book needs {VERSION} (found: {found}). Installing it with \
         `cargo {}` — this takes several minutes.",
        INSTALL.join(" ")
    );
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .args(INSTALL)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => {
                CliError::misuse("cargo not found; it is needed to install mdbook")
            }
            _ => CliError::failed(format!("could not run cargo install: {e}")),
        })?;
    if !status.success() {
        return Err(CliError::failed(format!(
            "installing mdbook failed ({status})"
        )));
    }
    candidates
        .iter()
        .find(|c| version(c).as_deref() == Some(VERSION))
        .cloned()
        .ok_or_else(|| {
            CliError::failed(format!(
                "mdbook was installed but no `{VERSION}` is found on PATH or in ~/.cargo/bin"
            ))
        })
}

fn version(program: &Path) -> Option<String> {
    let output = Command::new(program).arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_words_not_substrings() {
        assert!(is_warning(
            " WARN mdbook::preprocess::links: Error reading \"x.rs\""
        ));
        assert!(is_warning(
            "2026-01-01 10:00:00 [ERROR] (mdbook::utils): Error: x"
        ));
        assert!(!is_warning(" INFO mdbook::book: Running the html backend"));
        assert!(!is_warning(" INFO wrote book/WARNINGS.html"));
    }
}
