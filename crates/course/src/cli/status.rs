//! `cargo course`: the progress table and the next step.

use std::process::ExitCode;

use oneloop_course::progress::StageResults;

use super::report::{self, first_unsolved};
use super::{CliError, Course};

pub(crate) fn run(course: &Course) -> Result<ExitCode, CliError> {
    let stages = &course.catalog.stages;
    if stages.is_empty() {
        outln!("No stages yet: no exercises/NN-name/ folder holds a course.toml.");
        return Ok(ExitCode::SUCCESS);
    }
    // Gather first (tests may run and print progress), then print the table in one piece.
    course.build_stale(stages);
    let mut rows = Vec::new();
    for stage in stages {
        let results = course.results(stage)?;
        let states = match &results {
            StageResults::Tested(run) => Some(report::states(course, stage, run)),
            StageResults::BuildFailed(_) => None,
        };
        rows.push((stage, results, states));
    }

    let width = stages
        .iter()
        .map(|s| s.title.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    outln!();
    outln!("oneloop — your progress");
    outln!();
    outln!("  stage  {:width$}  passed  challenge", "title");
    for (stage, _, states) in &rows {
        let passed = match states {
            Some(states) => format!(
                "{}/{}",
                states.iter().filter(|s| s.is_solved()).count(),
                states.len()
            ),
            None => "does not compile".to_string(),
        };
        let challenge = if stage.challenge.is_some() {
            "optional"
        } else {
            "-"
        };
        outln!(
            "  {:<5}  {:width$}  {passed:<6}  {challenge}",
            stage.number,
            stage.title
        );
    }
    outln!();
    if stages.iter().any(|s| s.challenge.is_some()) {
        outln!(
            "A challenge is optional: the mechanism of one file of the reference, written \
             from its signatures and the chapter. Try it with `cargo course test <N> --challenge`."
        );
        outln!();
    }

    for (stage, results, states) in &rows {
        match (results, states) {
            (StageResults::BuildFailed(block), _) => {
                return Err(CliError::does_not_compile(stage.number, block));
            }
            (_, Some(states)) => {
                if let Some(exercise) = first_unsolved(stage, states) {
                    report::print_next(stage, exercise);
                    return Ok(ExitCode::SUCCESS);
                }
            }
            _ => {}
        }
    }
    outln!("Every exercise of every stage passes. Well done.");
    outln!("Compare with the reference: cargo course solution <N>");
    Ok(ExitCode::SUCCESS)
}
