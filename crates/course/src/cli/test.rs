//! `cargo course test N`: run the learner's tests and show each exercise's state.

use std::process::ExitCode;

use oneloop_course::Stage;
use oneloop_course::progress::StageResults;

use super::report::{self, first_unsolved};
use super::{CliError, Course};

pub(crate) fn run(course: &Course, stage: &Stage) -> Result<ExitCode, CliError> {
    let run = match course.run_tests(stage)? {
        StageResults::BuildFailed(block) => {
            return Err(CliError::does_not_compile(stage.number, &block));
        }
        StageResults::Tested(run) => run,
    };
    let states = report::states(course, stage, &run);
    let solved = states.iter().filter(|s| s.is_solved()).count();
    outln!();
    outln!(
        "stage {} — {}: {solved} of {} exercises pass",
        stage.number,
        stage.title,
        states.len()
    );
    outln!();
    let width = stage
        .exercises
        .iter()
        .map(|e| e.title.chars().count())
        .max()
        .unwrap_or(0);
    for (exercise, state) in stage.exercises.iter().zip(&states) {
        let total = state.passed + state.failed;
        if state.is_waiting() {
            // Its tests run code of an exercise not done yet: a failure here is not its own.
            outln!(
                "  wait  exercise {}  {:width$}  {}",
                exercise.id,
                exercise.title,
                report::waiting_words(state, &states)
            );
            continue;
        }
        let mark = if state.is_solved() { "pass" } else { "FAIL" };
        let count = if total == 0 {
            format!("no ex{}_ test ran", exercise.id)
        } else {
            format!("passed {} of {}", state.passed, report::tests(total))
        };
        outln!(
            "  {mark}  exercise {}  {:width$}  {count}",
            exercise.id,
            exercise.title
        );
        if let Some((name, message)) = &state.first_failure {
            let short = name.rsplit("::").next().unwrap_or(name);
            outln!("        {short}:");
            outln!("{}", report::indented(message, "          ", 8));
        }
    }
    outln!();
    match first_unsolved(stage, &states) {
        Some(exercise) => {
            report::print_next(stage, exercise);
            Ok(ExitCode::FAILURE)
        }
        None => {
            outln!(
                "Stage {} is done. See the reference with `cargo course solution {}`, \
                 then run `cargo course` for what comes next.",
                stage.number,
                stage.number
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
