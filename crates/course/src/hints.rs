//! Hints files: `## Exercise M: title`, then `### Hint 1`, `### Hint 2`, … sections.
//! The stage's challenge has its own: `## Challenge: title`, read as exercise
//! [`CHALLENGE`].
//!
//! A hint's text is everything up to the next heading of level three or less. Headings
//! inside fenced code blocks are text, not structure.

use std::path::Path;

use crate::toml_file::ParseError;

/// The number under which the `## Challenge: title` section is read.
pub const CHALLENGE: u32 = 0;

/// The hints for one exercise, gentlest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExerciseHints {
    /// The exercise number ([`CHALLENGE`] for the stage's challenge).
    pub exercise: u32,
    /// The title after `Exercise M:`.
    pub title: String,
    /// The line of the `## Exercise` heading.
    pub line: usize,
    /// Each hint's text, trimmed, in order.
    pub hints: Vec<String>,
}

/// Parses a hints file; `file` only names it in errors.
pub fn parse(file: &Path, text: &str) -> Result<Vec<ExerciseHints>, ParseError> {
    let mut out: Vec<ExerciseHints> = Vec::new();
    let mut current: Option<String> = None; // the hint being collected
    let mut in_fence = false;
    let error = |line: usize, message: String| ParseError::new(file, line, message);

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let heading = if in_fence { None } else { heading(raw) };
        match heading {
            Some((level, title)) if level <= 3 => {
                finish(&mut out, &mut current);
                if level == 2
                    && let Some(rest) = title.strip_prefix("Challenge:")
                {
                    if out.iter().any(|e| e.exercise == CHALLENGE) {
                        return Err(error(line, "the challenge appears twice".into()));
                    }
                    out.push(ExerciseHints {
                        exercise: CHALLENGE,
                        title: rest.trim().to_string(),
                        line,
                        hints: Vec::new(),
                    });
                } else if level == 2 {
                    let rest = title.strip_prefix("Exercise ").ok_or_else(|| {
                        error(
                            line,
                            format!(
                                "expected `## Exercise M: title` or `## Challenge: title`, \
                                 found `{raw}`"
                            ),
                        )
                    })?;
                    let (number, title) = rest.split_once(':').unwrap_or((rest, ""));
                    let exercise = number.trim().parse::<u32>().map_err(|_| {
                        error(
                            line,
                            format!("`{}` is not an exercise number", number.trim()),
                        )
                    })?;
                    if exercise == CHALLENGE || out.iter().any(|e| e.exercise == exercise) {
                        return Err(error(line, format!("exercise {exercise} appears twice")));
                    }
                    out.push(ExerciseHints {
                        exercise,
                        title: title.trim().to_string(),
                        line,
                        hints: Vec::new(),
                    });
                } else if level == 3 {
                    let Some(exercise) = out.last() else {
                        return Err(error(
                            line,
                            "a hint before any `## Exercise` heading".into(),
                        ));
                    };
                    let expected = exercise.hints.len() + 1;
                    let number = title.strip_prefix("Hint ").map(str::trim);
                    if number != Some(expected.to_string().as_str()) {
                        return Err(error(
                            line,
                            format!(
                                "expected `### Hint {expected}` (exercise {}), found `{raw}`",
                                exercise.exercise
                            ),
                        ));
                    }
                    current = Some(String::new());
                }
                // A level-1 heading is the file's title: it ends any hint, and that is all.
            }
            _ => {
                if let Some(text) = current.as_mut() {
                    text.push_str(raw);
                    text.push('\n');
                }
            }
        }
    }
    finish(&mut out, &mut current);
    if let Some(empty) = out.iter().find(|e| e.hints.iter().any(|h| h.is_empty())) {
        return Err(error(
            empty.line,
            format!("exercise {} has an empty hint", empty.exercise),
        ));
    }
    Ok(out)
}

/// `Some((level, text))` when `line` is an ATX heading.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &line[level..];
    (rest.is_empty() || rest.starts_with(' ')).then(|| (level, rest.trim()))
}

fn finish(out: &mut [ExerciseHints], current: &mut Option<String>) {
    if let (Some(text), Some(exercise)) = (current.take(), out.last_mut()) {
        exercise.hints.push(text.trim().to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Stage 1 hints\n\n## Exercise 1: Count down\n\n### Hint 1\n\n\
        Think of each `.await` as a state.\n\n### Hint 2\nThe state enum needs a variant\n\
        ```rust\n# not a heading\n```\n\n## Exercise 2: Trampoline\n### Hint 1\nA loop.\n";

    #[test]
    fn reads_exercises_and_hints_in_order() {
        let hints = parse(Path::new("hints.md"), SAMPLE).unwrap();
        assert_eq!(hints.len(), 2);
        assert_eq!(hints[0].exercise, 1);
        assert_eq!(hints[0].title, "Count down");
        assert_eq!(hints[0].hints[0], "Think of each `.await` as a state.");
        assert_eq!(
            hints[0].hints[1],
            "The state enum needs a variant\n```rust\n# not a heading\n```"
        );
        assert_eq!(hints[1].hints, vec!["A loop.".to_string()]);
        assert_eq!(hints[1].line, 15);
    }

    #[test]
    fn the_challenge_has_its_own_section() {
        let text = format!("{SAMPLE}\n## Challenge: The whole driver\n### Hint 1\nWhich step?\n");
        let hints = parse(Path::new("hints.md"), &text).unwrap();
        assert_eq!(hints[2].exercise, CHALLENGE);
        assert_eq!(hints[2].title, "The whole driver");
        assert_eq!(hints[2].hints, vec!["Which step?".to_string()]);
        let twice = format!("{text}## Challenge: again\n### Hint 1\nx\n");
        let err = parse(Path::new("hints.md"), &twice)
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("the challenge appears twice"), "{err}");
    }

    #[test]
    fn malformed_headings_are_located() {
        let cases = [
            ("### Hint 1\nx\n", "hints.md:1: a hint before any"),
            (
                "## Exercise 1: a\n### Hint 2\nx\n",
                "hints.md:2: expected `### Hint 1`",
            ),
            (
                "## Exercises\n",
                "hints.md:1: expected `## Exercise M: title`",
            ),
            (
                "## Exercise x: a\n",
                "hints.md:1: `x` is not an exercise number",
            ),
            (
                "## Exercise 1: a\n### Hint 1\n\n",
                "hints.md:1: exercise 1 has an empty hint",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(Path::new("hints.md"), text).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{text:?} gave {err:?}");
        }
    }
}
