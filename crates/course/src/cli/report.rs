//! What several commands print the same way: exercise states and the next step.

use oneloop_course::progress::{self, ExerciseState};
use oneloop_course::test_output::TestRun;
use oneloop_course::{Exercise, Stage};

use super::Course;

/// Each exercise's state in `run`, counting declared tests that never reported.
pub(crate) fn states(course: &Course, stage: &Stage, run: &TestRun) -> Vec<ExerciseState> {
    progress::exercise_states(stage, run, &course.declared_tests(stage))
}

/// The exercise of `stage` to work on next.
///
/// Start at the first unsolved exercise and, while it waits for another unsolved one,
/// go to that one (an exercise whose tests run exercise 2's code comes after exercise
/// 2). Two exercises that wait for each other are written together: the first of them.
pub(crate) fn first_unsolved<'s>(
    stage: &'s Stage,
    states: &[ExerciseState],
) -> Option<&'s Exercise> {
    let state_of = |id: u32| states.iter().find(|s| s.id == id);
    let mut current = states.iter().find(|s| !s.is_solved())?;
    let mut path: Vec<u32> = Vec::new();
    loop {
        path.push(current.id);
        let next = current
            .waiting_for
            .iter()
            .filter_map(|&id| state_of(id))
            .find(|s| !s.is_solved());
        match next {
            Some(next) if path.contains(&next.id) => {
                let at = path.iter().position(|&id| id == next.id).unwrap_or(0);
                let first = path[at..].iter().min().copied().unwrap_or(next.id);
                return stage.exercise(first);
            }
            Some(next) => current = next,
            None => return stage.exercise(current.id),
        }
    }
}

/// The words for what `state` waits for; `states` tells whether a wait is mutual.
pub(crate) fn waiting_words(state: &ExerciseState, states: &[ExerciseState]) -> String {
    let mutual: Vec<u32> = state
        .waiting_for
        .iter()
        .copied()
        .filter(|&id| {
            states
                .iter()
                .any(|s| s.id == id && s.waiting_for.contains(&state.id))
        })
        .collect();
    if mutual.is_empty() {
        format!(
            "waiting for {} (its tests run that code)",
            exercises(&state.waiting_for)
        )
    } else {
        format!(
            "waiting for {}, which needs this one too: write both",
            exercises(&state.waiting_for)
        )
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn stage(ids: u32) -> Stage {
        Stage {
            number: 4,
            title: "t".into(),
            chapter: PathBuf::from("c.md"),
            reference: PathBuf::from("crates/04-x"),
            dir: PathBuf::from("exercises/04-x"),
            package: "ex04-x".into(),
            exercises: (1..=ids)
                .map(|id| Exercise {
                    id,
                    title: format!("exercise {id}"),
                    file: PathBuf::from("f.rs"),
                    solution: PathBuf::from("s.rs"),
                    section: "4.1".into(),
                    chapter: PathBuf::from("c.md"),
                    hole: None,
                    needs: Vec::new(),
                })
                .collect(),
            challenge: None,
        }
    }

    fn state(id: u32, solved: bool, waiting_for: &[u32]) -> ExerciseState {
        ExerciseState {
            id,
            passed: 1,
            failed: usize::from(!solved),
            first_failure: None,
            waiting_for: waiting_for.to_vec(),
            holes_reached: Vec::new(),
        }
    }

    #[test]
    fn the_next_exercise_follows_waits_and_breaks_a_cycle_at_its_first() {
        let stage = stage(4);
        let next = |states: &[ExerciseState]| first_unsolved(&stage, states).map(|e| e.id);
        // 1 waits for 2, which waits for 1: write 1 (and 2 with it).
        let mutual = [
            state(1, false, &[2]),
            state(2, false, &[1]),
            state(3, false, &[1]),
            state(4, false, &[]),
        ];
        assert_eq!(next(&mutual), Some(1));
        assert!(waiting_words(&mutual[0], &mutual).contains("needs this one too"));
        assert!(waiting_words(&mutual[2], &mutual).contains("its tests run that code"));
        // 1 written: it still waits for 2, which now fails on its own.
        let chain = [
            state(1, false, &[2]),
            state(2, false, &[]),
            state(3, true, &[]),
            state(4, false, &[]),
        ];
        assert_eq!(next(&chain), Some(2));
        let done = [state(1, true, &[]), state(2, true, &[])];
        assert_eq!(next(&done), None);
    }
}
