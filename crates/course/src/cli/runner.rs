//! Spawning cargo: the learner's tests, the reference's tests, and reading what they gave.

use std::collections::BTreeMap;
use std::env;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use oneloop_course::Stage;
use oneloop_course::progress::StageResults;
use oneloop_course::{compiler_error, test_output, workspace};

use super::CliError;

/// The exercise crates' feature that compiles a stage's challenge file.
pub(crate) const CHALLENGE_FEATURE: &str = "challenge";

/// Variables `cargo run` sets for this program that must not leak into a nested cargo
/// (cargo sets its own per crate; leaving ours could only confuse a build script).
const RUN_ONLY_VARS: [&str; 6] = [
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_RUSTC_CURRENT_DIR",
];

/// The cargo that runs us, run from the workspace root.
#[derive(Debug)]
pub(crate) struct Cargo {
    program: OsString,
    root: PathBuf,
}

impl Cargo {
    pub(crate) fn new(root: &Path) -> Cargo {
        // `cargo run` tells its child which cargo it is; otherwise look on PATH.
        let program = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        Cargo {
            program,
            root: root.to_path_buf(),
        }
    }

    /// Runs cargo with `args` in the workspace root and captures its output.
    pub(crate) fn output(&self, args: &[&str]) -> Result<Output, CliError> {
        self.run(self.command(args))
    }

    /// Cargo with `args`, to run in the workspace root with our variables removed.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command.args(args).current_dir(&self.root);
        if env::var_os("CARGO_TARGET_DIR").is_some() {
            // A relative CARGO_TARGET_DIR means "from where you ran me"; this cargo runs
            // from the root, so hand it the same directory, absolute.
            command.env("CARGO_TARGET_DIR", workspace::target_dir(&self.root));
        }
        for var in RUN_ONLY_VARS {
            command.env_remove(var);
        }
        for (var, _) in env::vars_os() {
            if var.to_string_lossy().starts_with("CARGO_PKG_") {
                command.env_remove(var);
            }
        }
        command
    }

    /// Runs `command` (from [`command`](Self::command)) and captures its output.
    fn run(&self, mut command: Command) -> Result<Output, CliError> {
        command.output().map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => CliError::misuse(format!(
                "cargo not found (tried `{}`); install Rust with rustup and put cargo on PATH",
                self.program.to_string_lossy()
            )),
            _ => CliError::failed(format!(
                "could not start `{}`: {e}",
                self.program.to_string_lossy()
            )),
        })
    }

    /// The stage's tests (see [`Cargo::test_output`]), built with `--all-features`
    /// when `solution` is true (`solution`, and `challenge` with `challenge-reference`:
    /// the reference everywhere): the same build `cargo test --workspace
    /// --all-features` makes, so nothing is compiled twice.
    pub(crate) fn test_stage(
        &self,
        stage: &Stage,
        solution: bool,
    ) -> Result<StageResults, CliError> {
        let features: &[&str] = if solution { &["--all-features"] } else { &[] };
        self.test_output(stage, features).map(|run| run.results)
    }

    /// The stage's tests built with `--features challenge` (see [`Cargo::test_output`]):
    /// the stage's challenge file in place of its reference module, and the reference's
    /// files in place of every exercise's hole. A build of its own, made only when asked.
    pub(crate) fn test_challenge(
        &self,
        stage: &Stage,
    ) -> Result<(StageResults, String, String), CliError> {
        self.test_output(stage, &["--features", CHALLENGE_FEATURE])
            .map(|run| (run.results, run.stdout, run.stderr))
    }

    /// The challenge's model (`tests/<model>.rs`) built with `--features challenge`
    /// under `--cfg loom`, in `<target>/loom` (a build of its own: loom replaces the
    /// locks, so nothing of the usual build is reused), and each of its tests run in a
    /// process of its own: loom ends a process on a deadlock, so one failing model must
    /// not take the others' results with it. `Err` with the build's first error if it
    /// does not compile.
    pub(crate) fn test_model(
        &self,
        stage: &Stage,
        model: &str,
    ) -> Result<Result<Vec<ModelResult>, String>, CliError> {
        let build = [
            "test",
            "-p",
            stage.package.as_str(),
            "--features",
            CHALLENGE_FEATURE,
            "--test",
            model,
            "--no-run",
            "--color",
            "never",
            "--message-format",
            "json-render-diagnostics",
        ];
        let mut command = self.command(&build);
        let mut flags = env::var("RUSTFLAGS").unwrap_or_default();
        flags.push_str(" --cfg loom");
        command.env("RUSTFLAGS", flags.trim_start());
        command.env(
            "CARGO_TARGET_DIR",
            workspace::target_dir(&self.root).join("loom"),
        );
        let built = self.run(command)?;
        let stderr = String::from_utf8_lossy(&built.stderr);
        if !built.status.success() {
            return match compiler_error::first_error_block(&stderr) {
                Some(block) => Ok(Err(block)),
                None => Err(cargo_failed(&build, &stderr)),
            };
        }
        let folder = self.root.join(&stage.dir);
        let mut results = Vec::new();
        for binary in test_output::executables(&String::from_utf8_lossy(&built.stdout)) {
            let (listed, _) = run_binary(&binary, &folder, &["--list"])?;
            let names = listed
                .lines()
                .filter_map(|line| line.trim().strip_suffix(": test"));
            for name in names.map(str::to_owned) {
                let (out, err) = run_binary(&binary, &folder, &["--exact", &name])?;
                let run = test_output::parse(&out);
                let passed = run
                    .results
                    .iter()
                    .any(|r| r.name == name && r.outcome == test_output::Outcome::Ok);
                let message = if passed {
                    String::new()
                } else {
                    run.failure_message(&name)
                        .map(str::to_owned)
                        // A process that aborted printed its first panic (loom's
                        // "deadlock; threads = …") with its output, the rest after.
                        .unwrap_or_else(|| panic_message(&format!("{out}\n{err}")))
                };
                results.push(ModelResult {
                    name,
                    passed,
                    message,
                });
            }
        }
        if results.is_empty() {
            // The target holds nothing without the cfg: a build that ignored our
            // RUSTFLAGS (CARGO_ENCODED_RUSTFLAGS wins over it) checked nothing.
            results.push(ModelResult {
                name: model.to_owned(),
                passed: false,
                message: "the model's binary lists no test: it was built without \
                          `--cfg loom` (is CARGO_ENCODED_RUSTFLAGS set?)"
                    .to_owned(),
            });
        }
        Ok(Ok(results))
    }

    /// The learner's build of the stage's tests (see [`Cargo::test_output`]), with
    /// what the runs printed and the test list.
    pub(crate) fn test_stage_run(&self, stage: &Stage) -> Result<StageRun, CliError> {
        self.test_output(stage, &[])
    }

    /// Builds the stage's tests (`cargo test -p <package> --no-run`), lists each test
    /// binary's tests, then runs each exercise's tests in a process of its own (the
    /// binary with `--exact NAME…`, from the package's folder, as cargo runs it), and
    /// the tests of no exercise in one more. A stage's test files are one binary, and a
    /// test that reaches an unfinished hole on another thread fails every test of its
    /// process that is waiting (see the test kit's watchdog), and one that aborts ends
    /// them all: one process per exercise keeps one exercise's hole out of another's
    /// results. What the runs print is returned one after another, as `cargo test`
    /// prints several binaries' runs, and so are the binaries' lists.
    fn test_output(&self, stage: &Stage, features: &[&str]) -> Result<StageRun, CliError> {
        let mut build = vec!["test", "-p", stage.package.as_str()];
        build.extend(features);
        build.extend([
            "--no-run",
            "--color",
            "never",
            "--message-format",
            "json-render-diagnostics",
        ]);
        let built = self.output(&build)?;
        let mut stderr = String::from_utf8_lossy(&built.stderr).into_owned();
        let mut stdout = String::new();
        if !built.status.success() {
            return match StageResults::from_output(&stdout, &stderr) {
                Some(results) => Ok(StageRun {
                    results,
                    stdout,
                    stderr,
                    list: None,
                }),
                None => Err(cargo_failed(&build, &stderr)),
            };
        }
        let folder = self.root.join(&stage.dir);
        let binaries = test_output::executables(&String::from_utf8_lossy(&built.stdout));
        let mut groups: BTreeMap<Option<u32>, Vec<(&str, Vec<String>)>> = BTreeMap::new();
        let mut list = String::new();
        for binary in &binaries {
            let listed = run_binary(binary, &folder, &["--list"])?;
            for (exercise, names) in test_output::list_by_exercise(&listed.0) {
                groups.entry(exercise).or_default().push((binary, names));
            }
            list.push_str(&listed.0);
        }
        for runs in groups.values() {
            for (binary, names) in runs {
                let mut args = vec!["--exact"];
                args.extend(names.iter().map(String::as_str));
                let (out, err) = run_binary(binary, &folder, &args)?;
                stdout.push_str(&out);
                stderr.push_str(&err);
            }
        }
        Ok(StageRun {
            results: StageResults::Tested(test_output::parse(&stdout)),
            stdout,
            stderr,
            list: Some(list),
        })
    }

    /// `cargo build --tests --keep-going` for the packages of `stages`: the build that
    /// `cargo test -p <package>` then finds done. `--keep-going` builds every stage that
    /// compiles even when one does not.
    pub(crate) fn build_tests(&self, stages: &[&Stage]) -> Result<(), CliError> {
        let mut args = vec!["build", "--tests", "--keep-going", "--color", "never"];
        for stage in stages {
            args.extend(["-p", stage.package.as_str()]);
        }
        self.output(&args).map(drop)
    }

    /// `cargo test -p <package> -- --list`: the tests the stage's crate declares, as
    /// cargo's stdout prints them (the build is the one the tests just ran).
    pub(crate) fn list_tests(&self, stage: &Stage) -> Result<String, CliError> {
        let args = [
            "test",
            "-p",
            stage.package.as_str(),
            "--color",
            "never",
            "--",
            "--list",
        ];
        let output = self.output(&args)?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let detail = compiler_error::first_error_block(&stderr).unwrap_or_default();
            return Err(CliError::failed(format!(
                "`cargo {}` failed:\n{detail}",
                args.join(" ")
            )));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// How one test of a challenge's model ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelResult {
    /// The test's name as printed.
    pub(crate) name: String,
    /// Whether it passed.
    pub(crate) passed: bool,
    /// Why it failed (empty when it passed).
    pub(crate) message: String,
}

/// The first panic message in what a test process printed (the line after `panicked
/// at`), or its last line when there is none.
fn panic_message(printed: &str) -> String {
    let mut lines = printed.lines();
    while let Some(line) = lines.next() {
        if line.contains("panicked at")
            && let Some(message) = lines.next()
        {
            return message.trim().to_owned();
        }
    }
    printed
        .lines()
        .rfind(|line| !line.trim().is_empty())
        .unwrap_or("it ended with no output")
        .trim()
        .to_owned()
}

/// What one test run of a stage gave.
pub(crate) struct StageRun {
    pub(crate) results: StageResults,
    /// The runs' stdout, one after another, as `cargo test` prints them.
    pub(crate) stdout: String,
    /// Cargo's stderr, then the runs'.
    pub(crate) stderr: String,
    /// The test binaries' `--list` output, as `cargo test -- --list` prints it; `None`
    /// when the build failed.
    pub(crate) list: Option<String>,
}

/// Runs the test binary `binary` with `args` from `folder`; its stdout and stderr.
fn run_binary(binary: &str, folder: &Path, args: &[&str]) -> Result<(String, String), CliError> {
    let output = Command::new(binary)
        .args(args)
        .current_dir(folder)
        .output()
        .map_err(|e| CliError::failed(format!("could not run the test binary `{binary}`: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() && !stdout.contains("test result:") {
        // Killed before its summary (an abort, a stack overflow): the tests it did not
        // report count as failed; say why here, as cargo would.
        stderr.push_str(&format!(
            "the test binary `{binary}` ended before its summary: {}\n",
            output.status
        ));
    }
    Ok((stdout, stderr))
}

/// Cargo failed before any test ran and printed no compiler error: its last lines.
fn cargo_failed(args: &[&str], stderr: &str) -> CliError {
    let detail = compiler_error::first_error_block(stderr).unwrap_or_else(|| {
        let tail: Vec<&str> = stderr.lines().rev().take(10).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    });
    CliError::failed(format!(
        "`cargo {}` failed before running any test:\n{detail}",
        args.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::panic_message;

    #[test]
    fn the_first_panic_is_the_one_reported() {
        let printed = "running 1 test\n\nthread 'model::a' panicked at loom/src/rt/execution.rs:215:13:\n\
                       deadlock; threads = [(Id(0), Blocked)]\nstack backtrace:\n\n\
                       thread 'model::a' panicked at core/src/panicking.rs:233:5:\n\
                       panic in a destructor during cleanup\n";
        assert_eq!(
            panic_message(printed),
            "deadlock; threads = [(Id(0), Blocked)]"
        );
        assert_eq!(panic_message("running 1 test\nSIGSEGV\n\n"), "SIGSEGV");
        assert_eq!(panic_message(""), "it ended with no output");
    }
}
