//! Running a reference interpreter (CPython, Node) for the truth suites, and showing
//! where its trace and oneloop's part ways. Shared by `truth_asyncio.rs` and
//! `truth_node.rs`: each declares `mod external;`.

use std::fmt::Write as _;
use std::io::{self, Read, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// A program the truth suites compare oneloop with.
#[derive(Debug, Clone, Copy)]
pub struct Interpreter {
    /// The command, looked up on the PATH.
    pub program: &'static str,
    /// How to get it, appended to every "could not run it" message.
    pub missing: &'static str,
    /// The version the scenarios were written against, as `--version` begins.
    pub expected: &'static str,
    /// The suite's name, which starts the line naming the interpreter.
    pub suite: &'static str,
}

impl Interpreter {
    /// `<program> --version`, trimmed, written once to stderr (past the test harness's
    /// capture) so that every run shows what it checked against. Call it through a
    /// `OnceLock` in the suite so it is asked once per run.
    pub fn announce_version(&self) -> Result<String, String> {
        let version = self.ask_version();
        let mut stderr = io::stderr();
        // A failed write to stderr leaves nothing to report it to.
        let _ = match &version {
            Ok(version) if version.starts_with(self.expected) => writeln!(
                stderr,
                "{}: comparing oneloop with {version} ({} on the PATH)",
                self.suite, self.program
            ),
            Ok(version) => writeln!(
                stderr,
                "{}: comparing oneloop with {version} ({} on the PATH); the scenarios \
                 were written against {}, as CI runs it, so a disagreement here may come \
                 from the version",
                self.suite, self.program, self.expected
            ),
            Err(problem) => writeln!(stderr, "{}: {problem}", self.suite),
        };
        version
    }

    /// `<program> --version`, stdout and stderr together (old interpreters print it on
    /// stderr).
    fn ask_version(&self) -> Result<String, String> {
        let Interpreter {
            program, missing, ..
        } = self;
        let output = match Command::new(program).arg("--version").output() {
            Ok(output) => output,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(format!("{program} was not found. {missing}"));
            }
            Err(error) => {
                return Err(format!(
                    "{program} could not be started ({error}). {missing}"
                ));
            }
        };
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let version = text.trim().to_string();
        if !output.status.success() || version.is_empty() {
            return Err(format!("`{program} --version` said {version:?}. {missing}"));
        }
        Ok(version)
    }

    /// Runs `program args.. script` in the script's folder, with no stdin and none of
    /// the `env_removed` variables, kills it after `limit`, and returns the lines it
    /// printed. A non-zero exit shows the child's stderr.
    pub fn run(
        &self,
        args: &[&str],
        script: &Path,
        env_removed: &[&str],
        limit: Duration,
    ) -> Result<Vec<String>, String> {
        let name = script
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("the script");
        if !script.is_file() {
            return Err(format!("{} does not exist", script.display()));
        }
        let dir = script.parent().unwrap_or(Path::new("."));
        let script = script
            .as_os_str()
            .to_str()
            .ok_or("a script path that is not UTF-8")?;
        let mut all = args.to_vec();
        all.push(script);
        self.run_in(dir, &all, name, env_removed, limit)
    }

    /// Runs `program args..` in `dir`, as [`Interpreter::run`] runs a script; `name`
    /// says what ran in its messages.
    pub fn run_in(
        &self,
        dir: &Path,
        args: &[&str],
        name: &str,
        env_removed: &[&str],
        limit: Duration,
    ) -> Result<Vec<String>, String> {
        let Interpreter {
            program, missing, ..
        } = self;
        let mut command = Command::new(program);
        command.args(args).current_dir(dir);
        for variable in env_removed {
            command.env_remove(variable);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| format!("starting {program} failed ({error}). {missing}"))?;
        let stdout = read_all(child.stdout.take().expect("stdout is piped"));
        let stderr = read_all(child.stderr.take().expect("stderr is piped"));
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() < limit => {
                    // Supervising a process, not ordering events: poll its exit.
                    thread::sleep(Duration::from_millis(5));
                }
                Ok(None) => {
                    // Best effort: the test fails either way.
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "{name} did not finish within {limit:?}; it was killed"
                    ));
                }
                Err(error) => return Err(format!("waiting for {name} failed: {error}")),
            }
        };
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        if !status.success() {
            return Err(format!("{name} failed ({status}); its stderr:\n{stderr}"));
        }
        Ok(stdout.lines().map(str::to_string).collect())
    }
}

/// Reads a child's pipe to the end on a thread of its own, so a full pipe never stalls
/// the child while this thread waits for it.
fn read_all(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        // A read error leaves the text short, and the comparison then says so.
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// Compares two traces line by line. On a difference, the error is a side by side
/// listing headed by the two names: `>>` marks the first line that differs, `!=` every
/// later one, and a line one side lacks shows as `(none)`.
pub fn side_by_side(
    reference_name: &str,
    reference: &[String],
    oneloop: &[String],
) -> Result<(), String> {
    if reference == oneloop {
        return Ok(());
    }
    let width = reference
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(reference_name.len());
    let mut out = String::new();
    let _ = writeln!(out, "       #  {reference_name:width$}  oneloop");
    let mut first = None;
    for index in 0..reference.len().max(oneloop.len()) {
        let left = reference.get(index).map_or("(none)", String::as_str);
        let right = oneloop.get(index).map_or("(none)", String::as_str);
        let marker = if reference.get(index) == oneloop.get(index) {
            "  "
        } else if first.is_none() {
            first = Some(index + 1);
            ">>"
        } else {
            "!="
        };
        let _ = writeln!(out, "  {marker} {:>3}  {left:width$}  {right}", index + 1);
    }
    let first = first.expect("the traces differ somewhere");
    Err(format!(
        "the traces differ; first at line {first} (marked >>):\n{out}"
    ))
}
