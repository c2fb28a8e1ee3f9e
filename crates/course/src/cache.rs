//! What the course remembers between runs, under `<target>/course/`: each stage's last
//! `cargo test` output and test list, as cargo printed them, and how many hints were
//! revealed.
//!
//! The output is kept raw (`stage-NN.stdout`, `stage-NN.stderr`, `stage-NN.list`) and
//! read again with the
//! same parsers as a fresh run, so there is no format of our own to keep in step. The
//! files' modification time is set to when the run *started*: the results are trusted
//! only while no file they depend on (see [`newest_input`]) is newer than that (an edit
//! made while the tests ran is not covered by them).

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::catalog::{self, Stage};
use crate::progress::StageResults;

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

    fn output_file(&self, stage: u32, stream: &str) -> PathBuf {
        self.dir.join(format!("stage-{stage:02}.{stream}"))
    }

    fn hints_file(&self, stage: u32) -> PathBuf {
        self.dir.join(format!("stage-{stage:02}.hints"))
    }

    /// The text of `file`, if no input of `stage` is newer than the file's time.
    fn fresh(&self, root: &Path, stage: &Stage, file: &Path) -> Option<String> {
        let started = fs::metadata(file).ok()?.modified().ok()?;
        // `None < Some(_)`: a stage with no input files at all is trivially fresh.
        if newest_input(root, stage) > Some(started) {
            return None;
        }
        fs::read_to_string(file).ok()
    }

    /// The cached results of `stage`, if present and still fresh; `root` is the
    /// workspace root its paths are relative to.
    pub fn fresh_results(&self, root: &Path, stage: &Stage) -> Option<StageResults> {
        let stdout = self.fresh(root, stage, &self.output_file(stage.number, "stdout"))?;
        let stderr = self.fresh(root, stage, &self.output_file(stage.number, "stderr"))?;
        StageResults::from_output(&stdout, &stderr)
    }

    /// The cached output of `cargo test -- --list` for `stage`, if still fresh.
    pub fn fresh_list(&self, root: &Path, stage: &Stage) -> Option<String> {
        self.fresh(root, stage, &self.output_file(stage.number, "list"))
    }

    /// Keeps the output of `cargo test -- --list` for `stage`, listed at `started`.
    pub fn store_list(&self, stage: u32, started: SystemTime, stdout: &str) -> io::Result<()> {
        self.write_stamped(&self.output_file(stage, "list"), started, stdout)
    }

    fn write_stamped(&self, path: &Path, started: SystemTime, text: &str) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        fs::write(path, text)?;
        File::options()
            .write(true)
            .open(path)?
            .set_modified(started)
    }

    /// Keeps cargo's `stdout` and `stderr` of a run of `stage` that started at `started`.
    pub fn store_output(
        &self,
        stage: u32,
        started: SystemTime,
        stdout: &str,
        stderr: &str,
    ) -> io::Result<()> {
        for (stream, text) in [("stdout", stdout), ("stderr", stderr)] {
            self.write_stamped(&self.output_file(stage, stream), started, text)?;
        }
        Ok(())
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

    /// Records that `count` hints of `exercise` in `stage` are revealed (one line
    /// `M count` per exercise).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalog;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn scratch() -> PathBuf {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "oneloop-course-cache-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(root: &Path, relative: &str, text: &str) -> PathBuf {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// Sets the modification time of `path` (a file or a folder) to `when`.
    fn touch(path: &Path, when: SystemTime) {
        File::open(path).unwrap().set_modified(when).unwrap();
    }

    /// Sets the modification time of everything under `path` to `when`.
    fn touch_all(path: &Path, when: SystemTime) {
        if path.is_dir() {
            for entry in fs::read_dir(path).unwrap() {
                touch_all(&entry.unwrap().path(), when);
            }
        }
        touch(path, when);
    }

    const STDOUT: &str = "running 2 tests\ntest ex1_a ... ok\ntest ex1_b ... FAILED\n\n\
        failures:\n\n---- ex1_b stdout ----\nthread 'ex1_b' panicked at t.rs:1:1:\nno\n\n\
        failures:\n    ex1_b\n\ntest result: FAILED. 1 passed; 1 failed\n";

    #[test]
    fn cargo_output_is_read_back_until_an_input_is_newer_than_the_run() {
        let root = scratch();
        write(
            &root,
            "exercises/01-co/course.toml",
            "\n\n[[exercise]]\nid = 1\ntitle = \"A\"\nmodule = \"a\"\npage = \"a.md\"\n",
        );
        write(
            &root,
            "exercises/01-co/Cargo.toml",
            "[package]\nname = \"ex01-co\"\n",
        );
        write(
            &root,
            "book/src/SUMMARY.md",
            "- [C](ch01-co/index.md)\n  - [A](ch01-co/a.md)\n",
        );
        let hole = write(&root, "exercises/01-co/src/a.rs", "todo!()\n");
        let earlier = write(&root, "crates/00-base/src/lib.rs", "\n");
        let later = write(&root, "crates/02-next/src/lib.rs", "\n");
        let catalog = Catalog::load(&root).unwrap();
        let stage = &catalog.stages[0];

        // Every input as old as the run: the kept output is the results.
        let started = SystemTime::now() - Duration::from_secs(60);
        touch_all(&root, started - Duration::from_secs(1));
        touch(&root.join("exercises/01-co/Cargo.toml"), started);
        let cache = Cache::new(&root.join("target"));
        assert_eq!(cache.fresh_results(&root, stage), None, "nothing kept yet");
        cache.store_output(1, started, STDOUT, "").unwrap();
        cache.store_list(1, started, "ex1_a: test\n").unwrap();
        let expected = StageResults::from_output(STDOUT, "").unwrap();
        assert_eq!(cache.fresh_results(&root, stage), Some(expected.clone()));
        assert_eq!(
            cache.fresh_list(&root, stage).as_deref(),
            Some("ex1_a: test\n")
        );

        // A later stage's crate is not an input of stage 1.
        touch(&later, started + Duration::from_secs(1));
        assert_eq!(cache.fresh_results(&root, stage), Some(expected.clone()));

        // An earlier stage's source, then the learner's file: each makes it stale.
        touch(&earlier, started + Duration::from_secs(1));
        assert_eq!(cache.fresh_results(&root, stage), None);
        touch(&earlier, started);
        assert_eq!(cache.fresh_results(&root, stage), Some(expected));
        touch(&hole, started + Duration::from_secs(1));
        assert_eq!(cache.fresh_results(&root, stage), None);
        assert_eq!(cache.fresh_list(&root, stage), None);
    }

    #[test]
    fn a_kept_build_failure_reads_back_as_one() {
        let stderr = "error[E0308]: mismatched types\n --> a.rs:1:1\n\n\
            error: could not compile `ex01-co`\n";
        assert_eq!(
            StageResults::from_output("", stderr),
            Some(StageResults::BuildFailed(
                "error[E0308]: mismatched types\n --> a.rs:1:1".into()
            ))
        );
        // No test line and no build error: nothing to read (the run itself failed).
        assert_eq!(
            StageResults::from_output("", "error: no such package\n"),
            None
        );
    }
}
