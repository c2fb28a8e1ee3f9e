//! `cargo course test N --challenge` and `cargo course hint N --challenge`: the stage's
//! optional challenge.
//!
//! The challenge build is the exercise crate with its `challenge` feature: the
//! challenge file in place of one reference module, the reference's files in place of
//! the exercises' holes. It is compiled only by these commands and by `verify`, never
//! by a plain `cargo course`.

use std::fs;
use std::process::ExitCode;

use oneloop_course::hints::{self, CHALLENGE};
use oneloop_course::progress::{self, ExerciseState, StageResults};
use oneloop_course::test_output::TestRun;
use oneloop_course::{Challenge, Stage};

use super::report;
use super::runner::ModelResult;
use super::{CliError, Course};

/// The stage's challenge, or an error saying it has none.
pub(crate) fn of(stage: &Stage) -> Result<&Challenge, CliError> {
    stage.challenge.as_ref().ok_or_else(|| {
        CliError::misuse(format!(
            "stage {} has no challenge ({} has no [challenge] table)",
            stage.number,
            stage.course_toml().display()
        ))
    })
}

/// The states of the exercises that grade the challenge, in `run`.
pub(crate) fn graded_states(
    stage: &Stage,
    challenge: &Challenge,
    run: &TestRun,
) -> Vec<ExerciseState> {
    progress::exercise_states(stage, run, &[])
        .into_iter()
        .filter(|state| challenge.graded.contains(&state.id))
        .collect()
}

pub(crate) fn test(course: &Course, stage: &Stage) -> Result<ExitCode, CliError> {
    let challenge = of(stage)?;
    errln!(
        "running stage {}'s challenge (`cargo test -p {} --features challenge`; \
         its first build takes a minute)…",
        stage.number,
        stage.package
    );
    let run = match course.cargo.test_challenge(stage)?.0 {
        StageResults::BuildFailed(block) => {
            return Err(CliError::does_not_compile(stage.number, &block));
        }
        StageResults::Tested(run) => run,
    };
    let states = graded_states(stage, challenge, &run);
    let graded_pass = states.iter().all(ExerciseState::is_solved);
    // The model runs only on a file the graded tests pass: its failures say little
    // about a file that does not yet work at all.
    let model = match &challenge.model {
        Some(model) if graded_pass => Some((model, run_model(course, stage, model)?)),
        _ => None,
    };
    let model_pass = model
        .as_ref()
        .is_none_or(|(_, run)| run.as_ref().is_ok_and(|r| r.iter().all(|t| t.passed)));
    let solved = graded_pass && model_pass;
    outln!();
    outln!(
        "stage {} challenge — {}: {}",
        stage.number,
        challenge.title,
        if solved { "pass" } else { "not yet" }
    );
    outln!();
    for (state, exercise) in states
        .iter()
        .filter_map(|s| stage.exercise(s.id).map(|e| (s, e)))
    {
        let mark = if state.is_solved() { "pass" } else { "FAIL" };
        outln!(
            "  {mark}  exercise {}'s tests  {}  passed {} of {}",
            exercise.id,
            exercise.title,
            state.passed,
            report::tests(state.passed + state.failed)
        );
        if let Some((name, message)) = &state.first_failure {
            let short = name.rsplit("::").next().unwrap_or(name);
            outln!("        {short}:");
            outln!("{}", report::indented(message, "          ", 8));
        }
    }
    if let Some((model, run)) = &model {
        report_model(model, run);
    } else if let Some(model) = &challenge.model {
        outln!("  next  the loom model (tests/{model}.rs) runs once these pass");
    }
    outln!();
    if solved {
        outln!(
            "Challenge done. Compare with the reference: {}",
            challenge.solution.display()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("  edit   {}", challenge.file.display());
        outln!(
            "  read   section {} ({})",
            challenge.section,
            challenge.chapter.display()
        );
        outln!("  run    cargo course test {} --challenge", stage.number);
        outln!("  stuck? cargo course hint {} --challenge", stage.number);
        Ok(ExitCode::FAILURE)
    }
}

pub(crate) fn hint(course: &Course, stage: &Stage) -> Result<ExitCode, CliError> {
    let challenge = of(stage)?;
    let file = stage.hints_file();
    let text = fs::read_to_string(course.root.join(&file))
        .map_err(|e| CliError::failed(format!("cannot read {}: {e}", file.display())))?;
    let all = hints::parse(&file, &text).map_err(|e| CliError::failed(e.to_string()))?;
    let Some(found) = all.iter().find(|h| h.exercise == CHALLENGE) else {
        return Err(CliError::failed(format!(
            "{} has no `## Challenge` section",
            file.display()
        )));
    };
    let total = found.hints.len();
    let shown = course.cache.hints_revealed(stage.number, CHALLENGE);
    let next = (shown + 1).min(total);
    outln!();
    outln!(
        "Stage {} challenge — {}: hint {next} of {total}",
        stage.number,
        challenge.title
    );
    outln!();
    for hint in &found.hints[..next] {
        outln!("{}", report::indented(hint, "  ", usize::MAX));
        outln!();
    }
    if next < total {
        outln!(
            "{} more: run `cargo course hint {} --challenge` again.",
            total - next,
            stage.number
        );
    } else {
        outln!("That was the last hint for the challenge.");
    }
    if let Err(e) = course
        .cache
        .set_hints_revealed(stage.number, CHALLENGE, next)
    {
        errln!("warning: could not remember the hints shown: {e}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the challenge's loom model, saying so first: its build is one of its own.
fn run_model(
    course: &Course,
    stage: &Stage,
    model: &str,
) -> Result<Result<Vec<ModelResult>, String>, CliError> {
    errln!(
        "running the loom model on it (`RUSTFLAGS=\"--cfg loom\" cargo test -p {} \
         --features challenge --test {model}`, in target/loom; its first build takes a \
         minute)…",
        stage.package
    );
    course.cargo.test_model(stage, model)
}

/// One line for the model, and the first failure's test and message.
fn report_model(model: &str, run: &Result<Vec<ModelResult>, String>) {
    match run {
        Err(block) => {
            outln!("  FAIL  the loom model (tests/{model}.rs) does not compile:");
            outln!("{}", report::indented(block, "          ", 12));
        }
        Ok(results) => {
            let passed = results.iter().filter(|t| t.passed).count();
            let mark = if passed == results.len() {
                "pass"
            } else {
                "FAIL"
            };
            outln!(
                "  {mark}  the loom model (tests/{model}.rs, every order of its threads)  \
                 passed {passed} of {}",
                report::tests(results.len())
            );
            if let Some(failed) = results.iter().find(|t| !t.passed) {
                let short = failed.name.rsplit("::").next().unwrap_or(&failed.name);
                outln!("        {short}:");
                outln!("{}", report::indented(&failed.message, "          ", 8));
            }
        }
    }
}
