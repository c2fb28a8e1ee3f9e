//! What the course remembers between runs, under `<target>/course/`: each stage's last
//! test results and how many hints were revealed.
//!
//! Results are trusted only while no file they depend on changed: a cache is stale once
//! any file of the exercise crate (`src/`, `tests/`, `Cargo.toml`) or of the crates it
//! builds on (see [`newest_input`]) was modified after the run that wrote it *started*
//! (an edit made while the tests ran is not covered by them).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::catalog::{self, Stage};
use crate::progress::StageResults;
use crate::test_output::{Failure, Outcome, TestResult, TestRun};

const HEADER: &str = "oneloop-course results v1";

/// The cache folder for one target directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache under `target_dir/course/`.
    pub fn new(target_dir: &Path) -> Cache {
        Cache {
            dir: target_dir.join("course"),
        }
    }

    fn results_file(&self, stage: u32) -> PathBuf {
        self.dir.join(format!("stage-{stage:02}.results"))
    }

    fn hints_file(&self, stage: u32) -> PathBuf {
        self.dir.join(format!("stage-{stage:02}.hints"))
    }

    /// The cached results of `stage`, if present and still fresh; `root` is the
    /// workspace root its paths are relative to.
    pub fn fresh_results(&self, root: &Path, stage: &Stage) -> Option<StageResults> {
        let text = fs::read_to_string(self.results_file(stage.number)).ok()?;
        let (started, results) = decode(&text)?;
        // `None < Some(_)`: a stage with no input files at all is trivially fresh.
        (newest_input(root, stage) <= Some(started)).then_some(results)
    }

    /// Records `results` of a run of `stage` that started at `started`.
    pub fn store_results(
        &self,
        stage: u32,
        started: SystemTime,
        results: &StageResults,
    ) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        fs::write(self.results_file(stage), encode(started, results))
    }

    /// How many hints of `exercise` in `stage` were revealed.
    pub fn hints_revealed(&self, stage: u32, exercise: u32) -> usize {
        fs::read_to_string(self.hints_file(stage))
            .ok()
            .and_then(|text| {
                text.lines().find_map(|line| {
                    let (id, count) = line.split_once(' ')?;
                    (id.parse() == Ok(exercise)).then(|| count.trim().parse().ok())?
                })
            })
            .unwrap_or(0)
    }

    /// Records that `count` hints of `exercise` in `stage` are revealed.
    pub fn set_hints_revealed(&self, stage: u32, exercise: u32, count: usize) -> io::Result<()> {
        let path = self.hints_file(stage);
        let old = fs::read_to_string(&path).unwrap_or_default();
        let mut lines: Vec<String> = old
            .lines()
            .filter(|line| line.split_once(' ').map(|(id, _)| id.parse()) != Some(Ok(exercise)))
            .map(str::to_string)
            .collect();
        lines.push(format!("{exercise} {count}"));
        lines.sort();
        fs::create_dir_all(&self.dir)?;
        fs::write(path, lines.join("\n") + "\n")
    }
}

/// The newest modification time among the files the stage's results depend on: the
/// exercise crate, its reference crate, and (over-approximating the dependency graph,
/// which is cheap) every earlier stage's and every unnumbered shared crate's sources,
/// and the workspace manifest.
pub fn newest_input(root: &Path, stage: &Stage) -> Option<SystemTime> {
    let exercise = root.join(&stage.dir);
    let mut inputs = vec![
        exercise.join("src"),
        exercise.join("tests"),
        exercise.join("Cargo.toml"),
        root.join(&stage.reference).join("src"),
        root.join(&stage.reference).join("Cargo.toml"),
        root.join("Cargo.toml"),
    ];
    if let Ok(entries) = fs::read_dir(root.join("crates")) {
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().to_string();
            let earlier_or_shared = catalog::folder_number(&name).is_none_or(|n| n < stage.number);
            if earlier_or_shared {
                inputs.push(entry.path().join("src"));
                inputs.push(entry.path().join("Cargo.toml"));
            }
        }
    }
    inputs.iter().filter_map(|p| newest_under(p)).max()
}

fn newest_under(path: &Path) -> Option<SystemTime> {
    let meta = fs::metadata(path).ok()?;
    let own = meta.modified().ok();
    if !meta.is_dir() {
        return own;
    }
    let children = fs::read_dir(path).ok()?;
    children
        .filter_map(Result::ok)
        .filter_map(|entry| newest_under(&entry.path()))
        .chain(own)
        .max()
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

fn encode(started: SystemTime, results: &StageResults) -> String {
    let nanos = started
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut out = format!("{HEADER}\nstarted\t{nanos}\n");
    match results {
        StageResults::BuildFailed(error) => {
            out.push_str(&format!("build-failed\t{}\n", escape(error)));
        }
        StageResults::Tested(run) => {
            for r in &run.results {
                let word = match r.outcome {
                    Outcome::Ok => "ok",
                    Outcome::Failed => "FAILED",
                    Outcome::Ignored => "ignored",
                };
                out.push_str(&format!("result\t{word}\t{}\n", escape(&r.name)));
            }
            for f in &run.failures {
                out.push_str(&format!(
                    "failure\t{}\t{}\n",
                    escape(&f.name),
                    escape(&f.message)
                ));
            }
        }
    }
    out
}

fn decode(text: &str) -> Option<(SystemTime, StageResults)> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let nanos: u64 = lines.next()?.strip_prefix("started\t")?.parse().ok()?;
    let started = UNIX_EPOCH + std::time::Duration::from_nanos(nanos);
    let mut run = TestRun::default();
    for line in lines {
        let mut fields = line.splitn(3, '\t');
        match (fields.next()?, fields.next(), fields.next()) {
            ("build-failed", Some(error), None) => {
                return Some((started, StageResults::BuildFailed(unescape(error))));
            }
            ("result", Some(word), Some(name)) => {
                let outcome = match word {
                    "ok" => Outcome::Ok,
                    "FAILED" => Outcome::Failed,
                    "ignored" => Outcome::Ignored,
                    _ => return None,
                };
                run.results.push(TestResult {
                    name: unescape(name),
                    outcome,
                });
            }
            ("failure", Some(name), Some(message)) => run.failures.push(Failure {
                name: unescape(name),
                message: unescape(message),
            }),
            _ => return None,
        }
    }
    Some((started, StageResults::Tested(run)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_output::parse;

    #[test]
    fn results_survive_a_round_trip() {
        let run = parse(
            "test ex1_a ... ok\ntest ex2_b ... FAILED\n\n---- ex2_b stdout ----\n\
             thread 'x' panicked at a.rs:1:1:\nline one\n\tline\\two\n\nfailures:\n",
        );
        let started = UNIX_EPOCH + std::time::Duration::from_nanos(1_234_567_890_123);
        let results = StageResults::Tested(run);
        let (when, back) = decode(&encode(started, &results)).unwrap();
        assert_eq!(when, started);
        assert_eq!(back, results);

        let failed = StageResults::BuildFailed("error[E0308]: x\n --> a.rs:1:1".into());
        assert_eq!(decode(&encode(started, &failed)).unwrap().1, failed);
        assert!(decode("something else\n").is_none());
    }
}
