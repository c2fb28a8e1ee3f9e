//! Command dispatch and what every command shares: the workspace, the catalog, the cache.

// First: the printing macros every other module uses.
#[macro_use]
pub(crate) mod output;

mod book;
mod challenge;
mod error;
mod figures;
mod hint;
mod report;
mod runner;
mod solution;
mod status;
mod test;
mod usage;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use oneloop_course::cache::Cache;
use oneloop_course::progress::StageResults;
use oneloop_course::{Catalog, Stage, test_output, workspace};

pub(crate) use error::CliError;
use runner::Cargo;

/// What a command needs to know about the workspace.
pub(crate) struct Course {
    pub(crate) root: PathBuf,
    pub(crate) catalog: Catalog,
    pub(crate) cache: Cache,
    pub(crate) cargo: Cargo,
}

impl Course {
    fn open() -> Result<Course, CliError> {
        let root = workspace::current_root().map_err(|e| CliError::misuse(e.to_string()))?;
        let catalog = Catalog::load(&root).map_err(|e| CliError::misuse(e.to_string()))?;
        let target = workspace::target_dir(&root);
        Ok(Course {
            cache: Cache::new(&target),
            cargo: Cargo::new(&root),
            root,
            catalog,
        })
    }

    /// The stage named by a command-line argument (`1` or `01`).
    pub(crate) fn stage(&self, arg: Option<&String>, command: &str) -> Result<&Stage, CliError> {
        let valid = || {
            let numbers: Vec<String> = self
                .catalog
                .stages
                .iter()
                .map(|s| s.number.to_string())
                .collect();
            if numbers.is_empty() {
                "there are no stages yet (no exercises/NN-name/course.toml)".to_string()
            } else {
                format!("valid stages: {}", numbers.join(", "))
            }
        };
        let Some(arg) = arg else {
            return Err(CliError::misuse(format!(
                "`cargo course {command}` needs a stage number, e.g. `cargo course {command} 1`; {}",
                valid()
            )));
        };
        arg.parse::<u32>()
            .ok()
            .and_then(|n| self.catalog.stage(n))
            .ok_or_else(|| CliError::misuse(format!("unknown stage `{arg}`; {}", valid())))
    }

    /// The stage's results: the cache if still fresh, else a new test run.
    pub(crate) fn results(&self, stage: &Stage) -> Result<StageResults, CliError> {
        if let Some(results) = self.cache.fresh_results(&self.root, stage) {
            return Ok(results);
        }
        self.run_tests(stage)
    }

    /// Builds, in one cargo run, the tests of every stage in `stages` whose results are
    /// not fresh, so that cargo compiles them side by side on every core instead of one
    /// stage after another. Nothing is reported here: a stage that does not compile is
    /// reported by its own test run, which follows.
    pub(crate) fn build_stale(&self, stages: &[Stage]) {
        let stale: Vec<&Stage> = stages
            .iter()
            .filter(|stage| self.cache.fresh_results(&self.root, stage).is_none())
            .collect();
        if stale.len() < 2 {
            return;
        }
        errln!(
            "building the tests of {} stages together (the first build takes a couple of minutes)…",
            stale.len()
        );
        if let Err(e) = self.cargo.build_tests(&stale) {
            errln!("warning: {e}");
        }
    }

    /// The `exM_` tests the stage's crate declares, from cargo's own list (kept like
    /// the results). Empty, with a warning, if cargo cannot list them.
    pub(crate) fn declared_tests(&self, stage: &Stage) -> Vec<String> {
        if let Some(list) = self.cache.fresh_list(&self.root, stage) {
            return test_output::parse_list(&list);
        }
        let started = std::time::SystemTime::now();
        match self.cargo.list_tests(stage) {
            Ok(list) => {
                if let Err(e) = self.cache.store_list(stage.number, started, &list) {
                    errln!("warning: could not save the test list under the target dir: {e}");
                }
                test_output::parse_list(&list)
            }
            Err(e) => {
                errln!("warning: {e}");
                Vec::new()
            }
        }
    }

    /// Runs the learner's tests for `stage` and caches what they gave.
    pub(crate) fn run_tests(&self, stage: &Stage) -> Result<StageResults, CliError> {
        errln!("running stage {}'s tests…", stage.number);
        let started = std::time::SystemTime::now();
        let run = self.cargo.test_stage_run(stage)?;
        if let Err(e) = self
            .cache
            .store_output(stage.number, started, &run.stdout, &run.stderr)
        {
            errln!("warning: could not save the results under the target dir: {e}");
        }
        // The run listed the tests: `declared_tests` need not ask cargo again.
        if let Some(list) = &run.list
            && let Err(e) = self.cache.store_list(stage.number, started, list)
        {
            errln!("warning: could not save the test list under the target dir: {e}");
        }
        Ok(run.results)
    }
}

/// Runs the command in `args` (without the program name).
pub(crate) fn run(args: &[String]) -> Result<ExitCode, CliError> {
    let command = args.first().map(String::as_str);
    let rest = args.get(1..).unwrap_or(&[]);
    match command {
        None | Some("status") => {
            no_extra(rest, "status").and_then(|()| status::run(&Course::open()?))
        }
        Some("test") => match challenge_flag(rest) {
            Some(rest) => with_stage(&rest, "test", challenge::test),
            None => with_stage(rest, "test", test::run),
        },
        Some("hint") => match challenge_flag(rest) {
            Some(rest) => with_stage(&rest, "hint", challenge::hint),
            None => with_stage(rest, "hint", hint::run),
        },
        Some("solution") => with_stage(rest, "solution", solution::run),
        Some("verify") => no_extra(rest, "verify").and_then(|()| verify::run(&Course::open()?)),
        Some("book") => book::run(&Course::open()?.root, rest),
        Some("figures") => no_extra(rest, "figures").and_then(|()| figures::run(&Course::open()?)),
        Some("help" | "--help" | "-h") => {
            out!("{}", usage::USAGE);
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => Err(CliError::misuse(format!(
            "unknown command `{other}`; try `cargo course help`"
        ))),
    }
}

/// The arguments without `--challenge`, if it is one of them.
fn challenge_flag(rest: &[String]) -> Option<Vec<String>> {
    rest.iter().any(|a| a == "--challenge").then(|| {
        rest.iter()
            .filter(|a| *a != "--challenge")
            .cloned()
            .collect()
    })
}

fn no_extra(rest: &[String], command: &str) -> Result<(), CliError> {
    match rest.first() {
        None => Ok(()),
        Some(extra) => Err(CliError::misuse(format!(
            "`cargo course {command}` takes no argument, got `{extra}`; try `cargo course help`"
        ))),
    }
}

fn with_stage(
    rest: &[String],
    command: &str,
    body: impl FnOnce(&Course, &Stage) -> Result<ExitCode, CliError>,
) -> Result<ExitCode, CliError> {
    if let Some(extra) = rest.get(1) {
        return Err(CliError::misuse(format!(
            "`cargo course {command}` takes one stage number, got also `{extra}`"
        )));
    }
    let course = Course::open()?;
    let stage = course.stage(rest.first(), command)?;
    body(&course, stage)
}
