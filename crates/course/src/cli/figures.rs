//! `cargo course figures`: regenerate the book's figures into `book/src/figures/` and
//! the browser stepper's recordings into `book/src/stepper/data/`.
//!
//! The figures are drawn by the `oneloop-trace` crate (its `figures` example), which
//! needs the whole runtime; this crate stays std-only and just runs it.

use std::process::ExitCode;

use super::{CliError, Course};

/// Where the figures go, from the workspace root.
pub(crate) const FIGURES_DIR: &str = "book/src/figures";
/// Where the stepper's recordings go, from the workspace root.
pub(crate) const RECORDINGS_DIR: &str = "book/src/stepper/data";

pub(crate) fn run(course: &Course) -> Result<ExitCode, CliError> {
    let dir = course.root.join(FIGURES_DIR);
    let dir = dir
        .to_str()
        .ok_or_else(|| CliError::misuse(format!("the path {} is not UTF-8", dir.display())))?;
    let recordings = course.root.join(RECORDINGS_DIR);
    let recordings = recordings.to_str().ok_or_else(|| {
        CliError::misuse(format!("the path {} is not UTF-8", recordings.display()))
    })?;
    errln!("drawing the figures (the first build may take a minute)…");
    let args = [
        "run",
        "-q",
        "-p",
        "oneloop-trace",
        "--example",
        "figures",
        "--",
        dir,
        recordings,
    ];
    let output = course.cargo.output(&args)?;
    if !output.status.success() {
        err!("{}", String::from_utf8_lossy(&output.stderr));
        return Err(CliError::failed(format!(
            "`cargo {}` failed ({})",
            args.join(" "),
            output.status
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    out!("{stdout}");
    outln!(
        "{} file(s) written to {FIGURES_DIR}/ and {RECORDINGS_DIR}/",
        stdout
            .lines()
            .filter(|line| line.starts_with("wrote "))
            .count()
    );
    Ok(ExitCode::SUCCESS)
}
