//! Reading cargo's stderr when a build fails: the compiler's first error, shown to the
//! learner as rustc wrote it (the `error[E…]` line, its `-->` location, the source).

/// How much of a compiler error block the course shows.
const MAX_BLOCK_LINES: usize = 20;

/// Cargo's summary lines, which name a failure without explaining it.
const AGGREGATES: [&str; 5] = [
    "error: could not compile",
    "error: test failed",
    "error: process didn't exit successfully",
    "error: aborting due to",
    "error: failed to",
];

/// The compiler's first error from cargo's stderr: from the first `error[E…]` (or, if
/// none, the first explanatory `error:`) line to the blank line that ends its block.
pub fn first_error_block(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let is_aggregate = |l: &str| AGGREGATES.iter().any(|a| l.starts_with(a));
    let start = lines
        .iter()
        .position(|l| l.starts_with("error["))
        .or_else(|| {
            lines
                .iter()
                .position(|l| l.starts_with("error:") && !is_aggregate(l))
        })
        .or_else(|| lines.iter().position(|l| l.starts_with("error")))?;
    let mut block: Vec<&str> = lines[start..]
        .iter()
        .enumerate()
        .take_while(|(i, l)| *i == 0 || !(l.trim().is_empty() || l.starts_with("error")))
        .map(|(_, l)| *l)
        .collect();
    // The location and the labelled source come first; long notes are cut.
    if block.len() > MAX_BLOCK_LINES {
        block.truncate(MAX_BLOCK_LINES);
        block.push("  … (the rest of this error: run the same cargo command yourself)");
    }
    Some(block.join("\n"))
}

/// True when cargo's stderr says a crate did not compile.
pub fn build_failed(stderr: &str) -> bool {
    stderr
        .lines()
        .any(|l| l.starts_with("error: could not compile") || l.starts_with("error["))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_compiler_error() {
        let stderr = "\
   Compiling ex01-coroutine v0.1.0 (/w/exercises/01-coroutine)
warning: unused variable: `x`
 --> exercises/01-coroutine/src/a.rs:3:9

error[E0308]: mismatched types
 --> exercises/01-coroutine/src/countdown.rs:14:9
  |
14|         5
  |         ^ expected `Poll<u32>`, found integer

error[E0425]: cannot find value `y`
 --> exercises/01-coroutine/src/countdown.rs:20:9

error: could not compile `ex01-coroutine` (lib) due to 2 previous errors
";
        assert!(build_failed(stderr));
        let block = first_error_block(stderr).unwrap();
        assert!(block.starts_with("error[E0308]: mismatched types\n --> exercises/"));
        assert!(block.ends_with("found integer"));
        assert!(!block.contains("E0425"));

        let only_cargo = "error: could not compile `x`\n";
        assert_eq!(
            first_error_block(only_cargo).unwrap(),
            "error: could not compile `x`"
        );
        let syntax =
            "error: expected one of `;`\n --> src/a.rs:1:2\n\nerror: could not compile `x`\n";
        assert_eq!(
            first_error_block(syntax).unwrap(),
            "error: expected one of `;`\n --> src/a.rs:1:2"
        );
        assert!(!build_failed(
            "error: test failed, to rerun pass `--test t`\n"
        ));
    }
}
