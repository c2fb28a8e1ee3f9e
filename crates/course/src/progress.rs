//! From a test run to each exercise's state: an exercise passes when every one of its
//! `exM_` tests passes, and a test that was declared but never reported counts as failed.

use crate::catalog::Stage;
use crate::compiler_error;
use crate::test_output::{self, Outcome, TestRun, exercise_of};

/// What running a stage's tests gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StageResults {
    /// The tests ran (some may have failed).
    Tested(TestRun),
    /// The exercise crate did not compile; the compiler's first error.
    BuildFailed(String),
}

impl StageResults {
    /// What cargo's output of `cargo test` says: a build failure (the compiler's first
    /// error), or the tests that ran. `None` when it says neither: cargo failed before
    /// building (a wrong package name, a broken manifest).
    pub fn from_output(stdout: &str, stderr: &str) -> Option<StageResults> {
        if compiler_error::build_failed(stderr) {
            let block = compiler_error::first_error_block(stderr)
                .unwrap_or_else(|| "(cargo printed no error line)".to_string());
            return Some(StageResults::BuildFailed(block));
        }
        let run = test_output::parse(stdout);
        let ran = !run.results.is_empty() || stdout.contains("test result:");
        ran.then_some(StageResults::Tested(run))
    }
}

/// One exercise's state after a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExerciseState {
    /// The exercise number.
    pub id: u32,
    /// Tests of this exercise that passed.
    pub passed: usize,
    /// Tests of this exercise that failed or never reported.
    pub failed: usize,
    /// The first failing test and its message, if any.
    pub first_failure: Option<(String, String)>,
    /// Exercises this one needs that are not solved yet: those its `course.toml` entry
    /// declares (`needs = [2]`), and those whose unfinished hole (`todo!("stage N,
    /// exercise M…")`) one of its failing tests ran into. While one is listed, a failure
    /// here says nothing about this exercise's own code.
    pub waiting_for: Vec<u32>,
    /// Other exercises of the stage whose unfinished hole a failing test here reached.
    pub holes_reached: Vec<u32>,
}

impl ExerciseState {
    /// Every test passed, and there was at least one.
    pub fn is_solved(&self) -> bool {
        self.failed == 0 && self.passed > 0
    }

    /// Not solved, but only because an exercise it needs is not solved either.
    pub fn is_waiting(&self) -> bool {
        !self.is_solved() && !self.waiting_for.is_empty()
    }
}

/// Each exercise's state from `run`; `declared` are the test names the crate declares
/// (as `cargo test -- --list` gives them, see [`test_output::parse_list`]).
pub fn exercise_states(stage: &Stage, run: &TestRun, declared: &[String]) -> Vec<ExerciseState> {
    let mut states = own_states(stage, run, declared);
    let solved: Vec<u32> = states
        .iter()
        .filter(|s| s.is_solved())
        .map(|s| s.id)
        .collect();
    for (state, exercise) in states.iter_mut().zip(&stage.exercises) {
        if !state.is_solved() {
            let mut waiting: Vec<u32> = exercise
                .needs
                .iter()
                .chain(&state.holes_reached)
                .copied()
                .filter(|need| !solved.contains(need))
                .collect();
            waiting.sort_unstable();
            waiting.dedup();
            state.waiting_for = waiting;
        }
    }
    states
}

fn own_states(stage: &Stage, run: &TestRun, declared: &[String]) -> Vec<ExerciseState> {
    stage
        .exercises
        .iter()
        .map(|exercise| {
            let mut state = ExerciseState {
                id: exercise.id,
                passed: 0,
                failed: 0,
                first_failure: None,
                waiting_for: Vec::new(),
                holes_reached: Vec::new(),
            };
            for result in run
                .results
                .iter()
                .filter(|r| r.exercise() == Some(exercise.id))
            {
                match result.outcome {
                    Outcome::Ok => state.passed += 1,
                    Outcome::Ignored => {}
                    Outcome::Failed => {
                        state.failed += 1;
                        let message = run.failure_message(&result.name).unwrap_or("(no message)");
                        if let Some(other) = hole_reached(message, stage.number)
                            && other != exercise.id
                            && !state.holes_reached.contains(&other)
                        {
                            state.holes_reached.push(other);
                        }
                        if state.first_failure.is_none() {
                            state.first_failure = Some((result.name.clone(), message.to_string()));
                        }
                    }
                }
            }
            let reported = |name: &str| {
                run.results
                    .iter()
                    .any(|r| r.name.rsplit("::").next() == Some(name))
            };
            for name in declared
                .iter()
                .filter(|n| exercise_of(n) == Some(exercise.id) && !reported(n))
            {
                state.failed += 1;
                if state.first_failure.is_none() {
                    state.first_failure = Some((
                        name.clone(),
                        "did not report a result: its test binary stopped before reaching it \
                         (an abort, e.g. a panic inside a Drop while unwinding; \
                         see `cargo test -p <package>`)"
                            .replace("<package>", &stage.package),
                    ));
                }
            }
            state
        })
        .collect()
}

/// The exercise of stage `stage` whose unfinished hole panicked with `message`, if any.
fn hole_reached(message: &str, stage: u32) -> Option<u32> {
    let rest = message
        .strip_prefix("not yet implemented: ")?
        .strip_prefix(&format!("stage {stage}, exercise "))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Exercise;
    use crate::test_output::parse;
    use std::path::PathBuf;

    fn stage() -> Stage {
        let exercise = |id| Exercise {
            id,
            title: format!("exercise {id}"),
            file: PathBuf::from("f.rs"),
            solution: PathBuf::from("s.rs"),
            section: "1.1".into(),
            chapter: PathBuf::from("c.md"),
            hole: None,
            needs: Vec::new(),
        };
        Stage {
            number: 1,
            title: "t".into(),
            chapter: PathBuf::from("c.md"),
            reference: PathBuf::from("crates/01-x"),
            dir: PathBuf::from("exercises/01-x"),
            package: "ex01-x".into(),
            exercises: vec![exercise(1), exercise(2), exercise(3)],
            challenge: None,
        }
    }

    #[test]
    fn an_exercise_whose_needed_exercise_fails_is_waiting() {
        let mut stage = stage();
        stage.exercises[0].needs = vec![2];
        stage.exercises[2].needs = vec![1];
        let run = parse(
            "test ex1_a ... FAILED\ntest ex2_a ... FAILED\ntest ex3_a ... FAILED\n\
             test result: FAILED. 0 passed; 3 failed; 0 ignored\n",
        );
        let states = exercise_states(&stage, &run, &[]);
        assert_eq!(states[0].waiting_for, vec![2]);
        assert!(states[0].is_waiting());
        assert!(!states[1].is_waiting());
        assert_eq!(states[2].waiting_for, vec![1], "waits on its own need only");

        let run = parse("test ex1_a ... FAILED\ntest ex2_a ... ok\n");
        let states = exercise_states(&stage, &run, &[]);
        assert!(
            !states[0].is_waiting(),
            "exercise 2 passes: 1 fails on its own"
        );
    }

    #[test]
    fn a_test_that_reaches_another_exercises_hole_is_waiting_for_it() {
        let run = parse(
            "test ex2_a ... FAILED\ntest ex3_a ... FAILED\n\n\
             ---- ex2_a stdout ----\nthread 'x' panicked at src/wake.rs:1:1:\n\
             not yet implemented: stage 1, exercise 1: push once — see chapter 1.1\n\n\
             ---- ex3_a stdout ----\nthread 'x' panicked at src/c.rs:1:1:\n\
             not yet implemented: stage 1, exercise 3: gather — see chapter 1.3\n\n\
             failures:\n    ex2_a\n    ex3_a\n",
        );
        let states = exercise_states(&stage(), &run, &[]);
        assert_eq!(
            states[1].waiting_for,
            vec![1],
            "exercise 2 reached exercise 1's hole"
        );
        assert!(
            states[2].waiting_for.is_empty(),
            "its own hole is not a wait"
        );
    }

    #[test]
    fn an_exercise_passes_only_when_all_its_tests_pass() {
        let run = parse(
            "test ex1_a ... ok\ntest ex1_b ... ok\ntest m::ex2_a ... ok\n\
             test ex2_b ... FAILED\n\n---- ex2_b stdout ----\nthread 'x' panicked at a.rs:1:1:\nboom\n\n\
             failures:\n    ex2_b\n\ntest result: FAILED. 3 passed; 1 failed; 0 ignored\n",
        );
        let declared = vec!["ex1_a".to_string(), "ex1_b".into(), "ex3_lost".into()];
        let states = exercise_states(&stage(), &run, &declared);
        assert!(states[0].is_solved());
        assert!(!states[1].is_solved());
        assert_eq!(
            states[1].first_failure,
            Some(("ex2_b".to_string(), "boom".to_string()))
        );
        assert_eq!(states[2].failed, 1);
        assert!(!states[1].is_waiting(), "exercise 2 needs nothing");
        assert!(
            states[2]
                .first_failure
                .as_ref()
                .unwrap()
                .1
                .contains("stopped before reaching it")
        );
    }
}
