//! `cargo course hint N`: the next hint for stage N's first unsolved exercise.

use std::fs;
use std::process::ExitCode;

use oneloop_course::Stage;
use oneloop_course::hints;
use oneloop_course::progress::StageResults;

use super::report::{self, first_unsolved};
use super::{CliError, Course};

pub(crate) fn run(course: &Course, stage: &Stage) -> Result<ExitCode, CliError> {
    let states = match course.results(stage)? {
        StageResults::BuildFailed(block) => {
            return Err(CliError::does_not_compile(stage.number, &block));
        }
        StageResults::Tested(run) => report::states(course, stage, &run),
    };
    let Some(exercise) = first_unsolved(stage, &states) else {
        outln!(
            "Every exercise of stage {} passes: no hint needed. \
             Compare with the reference: cargo course solution {}",
            stage.number,
            stage.number
        );
        return Ok(ExitCode::SUCCESS);
    };

    let file = stage.hints_file();
    let text = fs::read_to_string(course.root.join(&file))
        .map_err(|e| CliError::failed(format!("cannot read {}: {e}", file.display())))?;
    let all = hints::parse(&file, &text).map_err(|e| CliError::failed(e.to_string()))?;
    let Some(found) = all.iter().find(|h| h.exercise == exercise.id) else {
        return Err(CliError::failed(format!(
            "{} has no `## Exercise {}` section",
            file.display(),
            exercise.id
        )));
    };
    let total = found.hints.len();
    let shown = course.cache.hints_revealed(stage.number, exercise.id);
    outln!();
    if shown >= total {
        outln!(
            "No more hints for stage {}, exercise {} — {}: all {total} are below.",
            stage.number,
            exercise.id,
            exercise.title
        );
        outln!();
        for (i, hint) in found.hints.iter().enumerate() {
            outln!("Hint {}:", i + 1);
            outln!("{}", report::indented(hint, "  ", usize::MAX));
            outln!();
        }
        outln!(
            "Re-read section {} ({}), then edit {}.",
            exercise.section,
            exercise.chapter.display(),
            exercise.file.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let next = shown + 1;
    outln!(
        "Stage {}, exercise {} — {}: hint {next} of {total}",
        stage.number,
        exercise.id,
        exercise.title
    );
    outln!();
    outln!(
        "{}",
        report::indented(&found.hints[shown], "  ", usize::MAX)
    );
    outln!();
    if next < total {
        outln!(
            "{} more: run `cargo course hint {}` again.",
            total - next,
            stage.number
        );
    } else {
        outln!("That was the last hint for this exercise.");
    }
    if let Err(e) = course
        .cache
        .set_hints_revealed(stage.number, exercise.id, next)
    {
        errln!("warning: could not remember the hints shown: {e}");
    }
    Ok(ExitCode::SUCCESS)
}
