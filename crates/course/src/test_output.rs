//! Reading what `cargo test` prints: result lines, failure sections, compiler errors.
//!
//! libtest prints `test NAME ... ok` (or `FAILED`, `ignored`) per test, a
//! `---- NAME stdout ----` section per failure holding the panic message, and a
//! `test result:` line per test binary. With several threads a name and its outcome may
//! land on different lines, so a `test NAME ...` left open is closed by the next bare
//! outcome. Cargo's own messages and the compiler's errors go to stderr (read by
//! [`crate::compiler_error`]).

use std::collections::BTreeMap;

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It passed.
    Ok,
    /// It failed (a panic, a failed assertion, a watchdog timeout).
    Failed,
    /// It was not run (`#[ignore]`).
    Ignored,
}

/// One `test NAME ... OUTCOME` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    /// The name as printed, module path included (`tests::ex1_counts`).
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
}

impl TestResult {
    /// The exercise this test checks, from its `exM_` name.
    pub fn exercise(&self) -> Option<u32> {
        exercise_of(&self.name)
    }
}

/// One `---- NAME stdout ----` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The test's name as printed.
    pub name: String,
    /// The panic that failed the test (see [`parse`]), or the section itself if none.
    pub message: String,
}

/// One `test result:` line, one per test binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Tests that passed.
    pub passed: usize,
    /// Tests that failed.
    pub failed: usize,
    /// Tests that were ignored.
    pub ignored: usize,
}

/// Everything read from one `cargo test` stdout.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TestRun {
    /// Every test result, in the order printed.
    pub results: Vec<TestResult>,
    /// Every failure section, in the order printed.
    pub failures: Vec<Failure>,
    /// Every `test result:` line.
    pub totals: Vec<Totals>,
}

impl TestRun {
    /// The message of the first failure section for `name`.
    pub fn failure_message(&self, name: &str) -> Option<&str> {
        self.failures
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.message.as_str())
    }
}

/// The exercise number of a test named `exM_…` (module path ignored).
pub fn exercise_of(name: &str) -> Option<u32> {
    let short = name.rsplit("::").next().unwrap_or(name);
    let rest = short.strip_prefix("ex")?;
    let (digits, _) = rest.split_once('_')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn outcome_word(text: &str) -> Option<Outcome> {
    let word = text.split([' ', ',']).next().unwrap_or("");
    match word {
        "ok" => Some(Outcome::Ok),
        "FAILED" => Some(Outcome::Failed),
        "ignored" => Some(Outcome::Ignored),
        _ => None,
    }
}

/// Parses the stdout of `cargo test`.
pub fn parse(stdout: &str) -> TestRun {
    let mut run = TestRun::default();
    let mut open: Vec<String> = Vec::new(); // names printed without their outcome yet
    let mut section: Option<(String, Vec<&str>)> = None;

    for line in stdout.lines() {
        // Failure sections first: their bodies may hold anything, even `test … ok`.
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|rest| rest.strip_suffix(" stdout ----"))
        {
            close_section(&mut run, section.take());
            section = Some((name.to_string(), Vec::new()));
            continue;
        }
        if section.is_some() {
            let end = line == "failures:" || line.starts_with("test result:");
            if !end {
                if let Some((_, body)) = section.as_mut() {
                    body.push(line);
                }
                continue;
            }
            close_section(&mut run, section.take());
        }
        if let Some(rest) = line.strip_prefix("test result: ") {
            run.totals.push(totals(rest));
            continue;
        }
        let mut rest = line;
        // A line may carry an outcome that closes an earlier name, then more results.
        if let Some(outcome) = outcome_word(rest.trim_start())
            && !open.is_empty()
        {
            let name = open.remove(0);
            run.results.push(TestResult { name, outcome });
            rest = "";
        }
        while let Some(start) = rest.find("test ") {
            let after = &rest[start + 5..];
            let Some((name, tail)) = after.split_once(" ...") else {
                break;
            };
            // `#[should_panic]` tests print as `test NAME - should panic ... ok`.
            let name = name.strip_suffix(" - should panic").unwrap_or(name);
            if name.is_empty() || name.contains(char::is_whitespace) {
                rest = after;
                continue;
            }
            let tail = tail.trim_start();
            match outcome_word(tail) {
                Some(outcome) => run.results.push(TestResult {
                    name: name.to_string(),
                    outcome,
                }),
                None => open.push(name.to_string()),
            }
            rest = tail;
        }
    }
    close_section(&mut run, section);
    run
}

fn close_section(run: &mut TestRun, section: Option<(String, Vec<&str>)>) {
    if let Some((name, body)) = section {
        run.failures.push(Failure {
            name,
            message: panic_message(&body),
        });
    }
}

/// The message of the panic that failed the test, from a failure section's lines.
///
/// A section prints every panic of the test, caught ones included: a test may make a
/// task panic on purpose ("main broke") and then fail an assertion about it. The panic
/// that failed the test is the last one printed. One exception: an unfinished hole's
/// `todo!` ("not yet implemented: stage N, exercise M…") is the cause of whatever
/// failed after it, and it tells the learner where to go, so it wins.
fn panic_message(body: &[&str]) -> String {
    let starts: Vec<usize> = body
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("panicked at"))
        .map(|(at, _)| at)
        .collect();
    if starts.is_empty() {
        let text = body.join("\n");
        let text = text.trim();
        return if text.is_empty() {
            "(no message)".to_string()
        } else {
            text.to_string()
        };
    }
    let messages: Vec<String> = starts.iter().map(|&at| one_panic(body, at)).collect();
    messages
        .iter()
        .find(|m| m.starts_with("not yet implemented"))
        .or(messages.last())
        .cloned()
        .unwrap_or_else(|| "(no message)".to_string())
}

/// The message of the panic whose `panicked at` line is `body[at]`.
fn one_panic(body: &[&str], at: usize) -> String {
    let lines: Vec<&str> = body[at + 1..]
        .iter()
        .take_while(|l| !ends_message(l))
        .copied()
        .collect();
    let text = lines.join("\n");
    let text = text.trim();
    if text.is_empty() {
        // The old one-line format: `thread 'x' panicked at 'msg', file:line:col`.
        body[at].trim().to_string()
    } else {
        text.to_string()
    }
}

/// A line that follows a panic message: the backtrace note, or another panic.
fn ends_message(line: &str) -> bool {
    line.starts_with("note: run with `RUST_BACKTRACE")
        || line.starts_with("stack backtrace:")
        || (line.starts_with("thread '") && line.contains("panicked at"))
}

fn totals(text: &str) -> Totals {
    let count = |label: &str| {
        text.split(';')
            .map(str::trim)
            .find_map(|part| {
                let part = part.rsplit(". ").next().unwrap_or(part);
                let (n, word) = part.split_once(' ')?;
                (word == label).then(|| n.parse().ok()).flatten()
            })
            .unwrap_or(0)
    };
    Totals {
        passed: count("passed"),
        failed: count("failed"),
        ignored: count("ignored"),
    }
}

/// The `exM_` test names in the output of `cargo test -- --list` (`path::name: test`
/// lines, one block per test binary), without their module path, sorted.
pub fn parse_list(stdout: &str) -> Vec<String> {
    let mut names: Vec<String> = stdout
        .lines()
        .filter_map(|line| line.trim().strip_suffix(": test"))
        .map(|path| path.rsplit("::").next().unwrap_or(path).to_string())
        .filter(|name| exercise_of(name).is_some())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The test binaries in what `cargo test --no-run --message-format json-render-diagnostics`
/// prints on stdout: the `"executable"` of each artifact that has one, in order. A path
/// holding a character JSON escapes other than `\\` and `\"` is skipped.
pub fn executables(stdout: &str) -> Vec<String> {
    const KEY: &str = "\"executable\":\"";
    stdout
        .lines()
        .filter(|line| line.contains("\"reason\":\"compiler-artifact\""))
        .filter_map(|line| {
            let rest = &line[line.find(KEY)? + KEY.len()..];
            let mut path = String::new();
            let mut chars = rest.chars();
            loop {
                match chars.next()? {
                    '"' => return Some(path),
                    '\\' => match chars.next()? {
                        escaped @ ('\\' | '"' | '/') => path.push(escaped),
                        _ => return None,
                    },
                    c => path.push(c),
                }
            }
        })
        .collect()
}

/// Every test in the output of `cargo test -- --list`, by its whole name (module path
/// included, as `--exact` wants it), grouped by the exercise its `exM_` name checks;
/// tests of no exercise are under `None`. Each group sorted, each name once.
pub fn list_by_exercise(stdout: &str) -> BTreeMap<Option<u32>, Vec<String>> {
    let mut groups: BTreeMap<Option<u32>, Vec<String>> = BTreeMap::new();
    for path in stdout
        .lines()
        .filter_map(|line| line.trim().strip_suffix(": test"))
    {
        groups
            .entry(exercise_of(path))
            .or_default()
            .push(path.to_string());
    }
    for names in groups.values_mut() {
        names.sort();
        names.dedup();
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
running 3 tests
test ex1_counts_down ... ok
test shape::ex2_resumes_after_yield ... FAILED
test ex2_ignored_one ... ignored, slow
test ex1_second ... ok
test ex1_must_panic - should panic ... ok

failures:

---- shape::ex2_resumes_after_yield stdout ----

thread 'test body (watchdog)' panicked at exercises/01-coroutine/src/countdown.rs:12:9:
not yet implemented: stage 1, exercise 2: write resume — see chapter 1.3
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    shape::ex2_resumes_after_yield

test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s

running 2 tests
test ex3_a ... test ex3_b ... FAILED
ok

failures:

---- ex3_b stdout ----
thread 'ex3_b' panicked at tests/t.rs:4:5:
assertion `left == right` failed: turns
  left: 1
 right: 2

failures:
    ex3_b

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";

    #[test]
    fn reads_results_even_when_interleaved() {
        let run = parse(SAMPLE);
        let got: Vec<(&str, Outcome)> = run
            .results
            .iter()
            .map(|r| (r.name.as_str(), r.outcome))
            .collect();
        assert_eq!(
            got,
            vec![
                ("ex1_counts_down", Outcome::Ok),
                ("shape::ex2_resumes_after_yield", Outcome::Failed),
                ("ex2_ignored_one", Outcome::Ignored),
                ("ex1_second", Outcome::Ok),
                ("ex1_must_panic", Outcome::Ok),
                ("ex3_b", Outcome::Failed),
                ("ex3_a", Outcome::Ok),
            ]
        );
        assert_eq!(run.results[1].exercise(), Some(2));
        assert_eq!(
            run.totals,
            vec![
                Totals {
                    passed: 2,
                    failed: 1,
                    ignored: 1
                },
                Totals {
                    passed: 1,
                    failed: 1,
                    ignored: 0
                },
            ]
        );
    }

    #[test]
    fn keeps_the_first_panic_message() {
        let run = parse(SAMPLE);
        assert_eq!(
            run.failure_message("shape::ex2_resumes_after_yield"),
            Some("not yet implemented: stage 1, exercise 2: write resume — see chapter 1.3")
        );
        assert_eq!(
            run.failure_message("ex3_b"),
            Some("assertion `left == right` failed: turns\n  left: 1\n right: 2")
        );
    }

    #[test]
    fn the_panic_that_failed_the_test_wins_over_a_deliberate_one() {
        let run = parse(
            "test ex4_x ... FAILED\n\nfailures:\n\n---- ex4_x stdout ----\n\
             thread 'test body (watchdog)' panicked at tests/ex4_run.rs:54:13:\nmain broke\n\
             note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\
             thread 'test body (watchdog)' panicked at tests/ex4_run.rs:57:9:\n\
             assertion `left == right` failed: the panic reaches the caller\n  left: 1\n right: 2\n\n\
             failures:\n    ex4_x\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored\n",
        );
        assert_eq!(
            run.failure_message("ex4_x"),
            Some(
                "assertion `left == right` failed: the panic reaches the caller\n  left: 1\n right: 2"
            )
        );
    }

    #[test]
    fn an_unfinished_hole_is_the_message_even_when_an_assertion_follows() {
        let run = parse(
            "---- ex2_y stdout ----\n\
             thread 'loop' panicked at exercises/04-core/src/turn.rs:9:9:\n\
             not yet implemented: stage 4, exercise 2: one turn — see chapter 4.2\n\
             thread 'test body (watchdog)' panicked at tests/t.rs:3:5:\nexpected Ok, got Panicked\n\n\
             failures:\n    ex2_y\n",
        );
        assert_eq!(
            run.failure_message("ex2_y"),
            Some("not yet implemented: stage 4, exercise 2: one turn — see chapter 4.2")
        );
    }

    #[test]
    fn exercise_numbers_come_from_names() {
        assert_eq!(exercise_of("ex12_x"), Some(12));
        assert_eq!(exercise_of("a::b::ex3_y"), Some(3));
        assert_eq!(exercise_of("ex_3"), None);
        assert_eq!(exercise_of("exit_code"), None);
        assert_eq!(exercise_of("helper"), None);
    }

    #[test]
    fn the_list_gives_each_exercise_test_once() {
        let list = "ex1_a: test\nmodule::ex2_b: test\nhelper: test\nex1_a: test\n\
                    ex1_bench: benchmark\n\n3 tests, 0 benchmarks\n";
        assert_eq!(parse_list(list), ["ex1_a", "ex2_b"]);
    }

    #[test]
    fn the_list_groups_whole_names_by_exercise() {
        let list = "ex2_file::ex2_b: test\nex1_file::ex1_a: test\nhelper: test\n\
                    ex2_file::ex1_c: test\nex1_file::ex1_a: test\nex1_bench: benchmark\n\n\
                    5 tests, 1 benchmark\n";
        let groups = list_by_exercise(list);
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[&Some(1)], ["ex1_file::ex1_a", "ex2_file::ex1_c"]);
        assert_eq!(groups[&Some(2)], ["ex2_file::ex2_b"]);
        assert_eq!(groups[&None], ["helper"]);
    }

    #[test]
    fn the_executables_are_read_from_cargos_artifact_lines() {
        let stdout = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"dep"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","executable":"/t/deps/exercises-1","fresh":true}"#,
            "\n",
            r#"{"reason":"compiler-artifact","executable":"/odd \"dir\"\\x/e-2"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","executable":"/t/\u00e9/e-3"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
            "\n"
        );
        assert_eq!(
            executables(stdout),
            ["/t/deps/exercises-1", "/odd \"dir\"\\x/e-2"]
        );
    }
}
