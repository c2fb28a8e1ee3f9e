//! `cargo course verify`: proves the course itself, stage by stage.
//!
//! Two runs per stage: with `--all-features` (the reference's files everywhere) every
//! test must pass; on the untouched holes every exercise must have at least one failing
//! test (an exercise whose tests all pass on the holes checks nothing). An exercise whose hole file no
//! longer matches the hash in `course.toml` was solved by the learner: there are no holes
//! left to fail, so that check is skipped and says so. Both builds are the ones
//! `cargo test --workspace --all-features` and a plain `cargo test` make, so CI pays
//! for no extra compilation.
//!
//! A stage with a challenge adds a third run, `--features challenge`: the challenge
//! file in place of its reference module, the reference everywhere else. Each graded
//! exercise must have a failing test there (the untouched challenge is caught by its
//! tests), and must have passed in the solution run (the reference's file, which the
//! challenge replaces, solves it). This run is a build of its own: it compiles the
//! exercise crate and its tests once more per stage.

use std::process::ExitCode;

use oneloop_course::hole::HoleFile;
use oneloop_course::progress::{ExerciseState, StageResults};
use oneloop_course::test_output::TestRun;
use oneloop_course::{Stage, test_output};

use super::{CliError, Course};
use super::{challenge, report};

/// Counts checks and prints one line per check.
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Tally {
    fn check(&mut self, ok: bool, what: &str, detail: &str) {
        if ok {
            self.passed += 1;
            outln!("ok    {what}: {detail}");
        } else {
            self.failed += 1;
            outln!("FAIL  {what}: {detail}");
        }
    }

    fn skip(&mut self, what: &str, detail: &str) {
        self.skipped += 1;
        outln!("skip  {what}: {detail}");
    }
}

pub(crate) fn run(course: &Course) -> Result<ExitCode, CliError> {
    let mut tally = Tally {
        passed: 0,
        failed: 0,
        skipped: 0,
    };
    if course.catalog.stages.is_empty() {
        outln!("no stages yet: no exercises/NN-name/ folder holds a course.toml");
    }
    for stage in &course.catalog.stages {
        errln!(
            "stage {}: running `cargo test -p {} --all-features` (the reference)…",
            stage.number,
            stage.package
        );
        match course.cargo.test_stage(stage, true) {
            Err(error) => cargo_failed(&mut tally, stage, "solution", &error),
            Ok(StageResults::BuildFailed(block)) => {
                build_failed(&mut tally, stage, "solution", &block);
            }
            Ok(StageResults::Tested(run)) => {
                check_solution(course, &mut tally, stage, &run);
                check_challenge_solution(&mut tally, stage, &run);
            }
        }
        errln!(
            "stage {}: running `cargo test -p {}` on the holes…",
            stage.number,
            stage.package
        );
        match course.cargo.test_stage(stage, false) {
            Err(error) => cargo_failed(&mut tally, stage, "holes", &error),
            Ok(StageResults::BuildFailed(block)) => {
                build_failed(&mut tally, stage, "holes", &block);
            }
            Ok(StageResults::Tested(run)) => check_holes(course, &mut tally, stage, &run),
        }
        if stage.challenge.is_some() {
            verify_challenge(course, &mut tally, stage);
        }
    }
    if tally.skipped == 0 {
        outln!("{} passed, {} failed", tally.passed, tally.failed);
    } else {
        outln!(
            "{} passed, {} failed, {} skipped (exercises you solved have no holes left to check)",
            tally.passed,
            tally.failed,
            tally.skipped
        );
    }
    Ok(if tally.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Cargo could not run the stage's tests at all; the summary line must still come last.
fn cargo_failed(tally: &mut Tally, stage: &Stage, build: &str, error: &CliError) {
    let text = error.to_string();
    let mut lines = text.lines();
    tally.check(
        false,
        &format!("stage {} {build} run", stage.number),
        lines.next().unwrap_or(""),
    );
    let rest: Vec<&str> = lines.collect();
    if !rest.is_empty() {
        outln!("{}", report::indented(&rest.join("\n"), "      ", 20));
    }
}

fn build_failed(tally: &mut Tally, stage: &Stage, build: &str, block: &str) {
    let first = block.lines().next().unwrap_or("");
    tally.check(
        false,
        &format!("stage {} {build} build", stage.number),
        &format!("does not compile: {first}"),
    );
    outln!("{}", report::indented(block, "      ", 20));
}

fn check_solution(course: &Course, tally: &mut Tally, stage: &Stage, run: &TestRun) {
    let states = report::states(course, stage, run);
    for (exercise, state) in stage.exercises.iter().zip(&states) {
        let what = format!("stage {} exercise {} solution", stage.number, exercise.id);
        let total = state.passed + state.failed;
        let detail = match (total, &state.first_failure) {
            (0, _) => format!("no ex{}_ test found", exercise.id),
            (_, None) => format!(
                "passing with the reference: {total} of {}",
                report::tests(total)
            ),
            (_, Some((name, message))) => format!(
                "failing with the reference: {} of {}; first: {name}: {}",
                state.failed,
                report::tests(total),
                message.lines().next().unwrap_or("")
            ),
        };
        tally.check(state.is_solved(), &what, &detail);
    }
    stray_tests(tally, stage, run);
}

fn check_holes(course: &Course, tally: &mut Tally, stage: &Stage, run: &TestRun) {
    let states: Vec<ExerciseState> = report::states(course, stage, run);
    for (exercise, state) in stage.exercises.iter().zip(&states) {
        let what = format!("stage {} exercise {} holes", stage.number, exercise.id);
        if HoleFile::of(&course.root, exercise).is_edited() {
            tally.skip(
                &what,
                &format!(
                    "exercise solved by you ({} differs from the hole the course ships): \
                     skipping the unsolved check",
                    exercise.file.display()
                ),
            );
            continue;
        }
        let total = state.passed + state.failed;
        let (ok, detail) = if total == 0 {
            (false, format!("no ex{}_ test found", exercise.id))
        } else if state.failed == 0 {
            (
                false,
                format!(
                    "passing on the untouched holes: {total} of {}, so no test checks this exercise",
                    report::tests(total)
                ),
            )
        } else {
            (
                true,
                format!(
                    "failing on the holes: {} of {}",
                    state.failed,
                    report::tests(total)
                ),
            )
        };
        tally.check(ok, &what, &detail);
    }
}

/// The reference's file solves the challenge: its graded tests passed in the solution run.
fn check_challenge_solution(tally: &mut Tally, stage: &Stage, run: &TestRun) {
    let Some(challenge) = &stage.challenge else {
        return;
    };
    for state in challenge::graded_states(stage, challenge, run) {
        let total = state.passed + state.failed;
        tally.check(
            state.is_solved(),
            &format!("stage {} challenge solution", stage.number),
            &format!(
                "exercise {}'s tests with the reference's {}: {} of {} pass",
                state.id,
                challenge.solution.display(),
                state.passed,
                report::tests(total)
            ),
        );
    }
}

/// The untouched challenge file fails every exercise that grades it.
fn verify_challenge(course: &Course, tally: &mut Tally, stage: &Stage) {
    let Some(challenge) = &stage.challenge else {
        return;
    };
    let what = format!("stage {} challenge", stage.number);
    if HoleFile::of_challenge(&course.root, challenge).is_edited() {
        tally.skip(
            &what,
            &format!(
                "challenge solved by you ({} differs from the file the course ships): \
                 skipping the unsolved check",
                challenge.file.display()
            ),
        );
        return;
    }
    errln!(
        "stage {}: running `cargo test -p {} --features challenge` on the challenge…",
        stage.number,
        stage.package
    );
    let run = match course.cargo.test_challenge(stage) {
        Err(error) => return cargo_failed(tally, stage, "challenge", &error),
        Ok((StageResults::BuildFailed(block), _, _)) => {
            return build_failed(tally, stage, "challenge", &block);
        }
        Ok((StageResults::Tested(run), _, _)) => run,
    };
    for state in challenge::graded_states(stage, challenge, &run) {
        let total = state.passed + state.failed;
        let ok = state.failed > 0;
        let detail = if ok {
            format!(
                "exercise {}'s tests fail on the untouched challenge: {} of {}",
                state.id,
                state.failed,
                report::tests(total)
            )
        } else {
            format!(
                "exercise {}'s tests pass on the untouched challenge ({} of {}), so they \
                 do not grade it",
                state.id,
                state.passed,
                report::tests(total)
            )
        };
        tally.check(ok, &format!("{what} holes"), &detail);
    }
}

/// Tests whose name maps to no exercise of the stage cannot be reported to a learner.
///
/// A unit test inside a module (`timers::tests::…`) is the reference crate's own test
/// of code the learner is given, compiled along with the shared file; it is not graded
/// and may have any name. The exercise crate's `tests/` are the graded ones.
fn stray_tests(tally: &mut Tally, stage: &Stage, run: &TestRun) {
    let stray: Vec<&str> = run
        .results
        .iter()
        .filter(|r| !r.name.contains("::"))
        .filter(|r| test_output::exercise_of(&r.name).is_none_or(|id| stage.exercise(id).is_none()))
        .map(|r| r.name.as_str())
        .collect();
    if !stray.is_empty() {
        tally.check(
            false,
            &format!("stage {} test names", stage.number),
            &format!(
                "not named `exM_…` for an exercise of the stage: {}",
                stray.join(", ")
            ),
        );
    }
}
