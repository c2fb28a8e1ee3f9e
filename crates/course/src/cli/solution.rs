//! `cargo course solution N`: the reference files, once every exercise of N passes.

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use oneloop_course::Stage;
use oneloop_course::progress::StageResults;

use super::report;
use super::{CliError, Course};

pub(crate) fn run(course: &Course, stage: &Stage) -> Result<ExitCode, CliError> {
    let states = match course.results(stage)? {
        StageResults::BuildFailed(block) => {
            return Err(CliError::does_not_compile(stage.number, &block));
        }
        StageResults::Tested(run) => report::states(course, stage, &run),
    };
    let left: Vec<String> = stage
        .exercises
        .iter()
        .zip(&states)
        .filter(|(_, s)| !s.is_solved())
        .map(|(e, _)| format!("exercise {} ({})", e.id, e.title))
        .collect();
    if !left.is_empty() {
        return Err(CliError::failed(format!(
            "stage {}'s solutions stay hidden until all its exercises pass; still to do: {}. \
             Run `cargo course test {}`.",
            stage.number,
            left.join(", "),
            stage.number
        )));
    }
    let mut files: Vec<&PathBuf> = Vec::new();
    for exercise in &stage.exercises {
        if !files.contains(&&exercise.solution) {
            files.push(&exercise.solution);
        }
    }
    for file in files {
        let text = fs::read_to_string(course.root.join(file))
            .map_err(|e| CliError::failed(format!("cannot read {}: {e}", file.display())))?;
        let ids: Vec<String> = stage
            .exercises
            .iter()
            .filter(|e| &e.solution == file)
            .map(|e| e.id.to_string())
            .collect();
        let label = if ids.len() == 1 {
            "exercise"
        } else {
            "exercises"
        };
        outln!(
            "==== {} (stage {}, {label} {}) ====",
            file.display(),
            stage.number,
            ids.join(", ")
        );
        outln!("{}", text.trim_end());
        outln!();
    }
    Ok(ExitCode::SUCCESS)
}
