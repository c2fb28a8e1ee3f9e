//! What several commands print the same way: exercise states and the next step.

use oneloop_course::progress::{self, ExerciseState};
use oneloop_course::test_output::TestRun;
use oneloop_course::{Exercise, Stage};

use super::Course;

/// Each exercise's state in `run`, counting declared tests that never reported.
pub(crate) fn states(course: &Course, stage: &Stage, run: &TestRun) -> Vec<ExerciseState> {
    let declared = progress::declared_tests(&course.root.join(&stage.dir));
    progress::exercise_states(stage, run, &declared)
}

/// The first exercise of `stage` to work on: the first unsolved one that is not waiting
/// for another (an exercise whose tests need exercise 2 comes after exercise 2).
pub(crate) fn first_unsolved<'s>(
    stage: &'s Stage,
    states: &[ExerciseState],
) -> Option<&'s Exercise> {
    states
        .iter()
        .find(|s| !s.is_solved() && !s.is_waiting())
        .or_else(|| states.iter().find(|s| !s.is_solved()))
        .and_then(|s| stage.exercise(s.id))
}

/// "exercise 2", "exercises 2 and 3".
pub(crate) fn exercises(ids: &[u32]) -> String {
    let names: Vec<String> = ids.iter().map(u32::to_string).collect();
    match names.as_slice() {
        [one] => format!("exercise {one}"),
        [rest @ .., last] => format!("exercises {} and {last}", rest.join(", ")),
        [] => "no exercise".to_string(),
    }
}

/// The "Next:" block: what to edit, what to read, what to run.
pub(crate) fn print_next(stage: &Stage, exercise: &Exercise) {
    outln!(
        "Next: stage {}, exercise {} — {}",
        stage.number,
        exercise.id,
        exercise.title
    );
    outln!("  edit   {}", exercise.file.display());
    outln!(
        "  read   section {} ({})",
        exercise.section,
        exercise.chapter.display()
    );
    outln!("  run    cargo course test {}", stage.number);
    outln!("  stuck? cargo course hint {}", stage.number);
}

/// `text` indented by `prefix`, cut to `max_lines` lines.
pub(crate) fn indented(text: &str, prefix: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(max_lines)
        .map(|l| format!("{prefix}{l}"))
        .collect();
    if lines.len() > max_lines {
        out.push(format!(
            "{prefix}… ({} more lines)",
            lines.len() - max_lines
        ));
    }
    out.join("\n")
}

/// "1 test", "3 tests".
pub(crate) fn tests(n: usize) -> String {
    if n == 1 {
        "1 test".into()
    } else {
        format!("{n} tests")
    }
}
