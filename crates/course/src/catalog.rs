//! The stage catalog: every `exercises/NN-name/course.toml`, read and checked.
//!
//! A stage is a folder `exercises/NN-name/` that holds a `course.toml`; a numbered
//! folder without one is a stage still being written and is skipped. Paths in the
//! catalog are relative to the workspace root, as the files write them.

use std::fs;
use std::path::{Path, PathBuf};

use crate::manifest;
use crate::toml_subset::{self, Entry, ParseError, Table, Value};

/// One stage of the course, from its `course.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// The stage number (the `NN` of the folder).
    pub number: u32,
    /// The stage's title.
    pub title: String,
    /// The chapter's first page, repo-relative (`book/src/ch01-…/index.md`).
    pub chapter: PathBuf,
    /// The reference crate's folder, repo-relative (`crates/01-…`).
    pub reference: PathBuf,
    /// The exercise crate's folder, repo-relative (`exercises/01-…`).
    pub dir: PathBuf,
    /// The exercise crate's package name, from its `Cargo.toml`.
    pub package: String,
    /// The exercises, in id order.
    pub exercises: Vec<Exercise>,
}

/// One exercise of a stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exercise {
    /// The exercise number within its stage (the `M` of `exM_` tests).
    pub id: u32,
    /// What the learner writes, in a few words.
    pub title: String,
    /// The file the learner edits, repo-relative.
    pub file: PathBuf,
    /// The reference file `cargo course solution` shows, repo-relative.
    pub solution: PathBuf,
    /// The book section that explains it, as mdBook numbers it (`1.2`).
    pub section: String,
    /// That section's page, repo-relative.
    pub chapter: PathBuf,
    /// The hash of the hole file as the course ships it (see [`crate::hole`]).
    pub hole: Option<String>,
    /// Exercises of the same stage whose code this one's tests run (`needs = [2]`):
    /// until those pass, this one's tests cannot.
    pub needs: Vec<u32>,
}

impl Stage {
    /// The exercise with id `id`.
    pub fn exercise(&self, id: u32) -> Option<&Exercise> {
        self.exercises.iter().find(|e| e.id == id)
    }

    /// The `course.toml` this stage was read from, repo-relative.
    pub fn course_toml(&self) -> PathBuf {
        self.dir.join("course.toml")
    }

    /// The stage's hints file, repo-relative.
    pub fn hints_file(&self) -> PathBuf {
        self.dir.join("hints.md")
    }
}

/// Every stage of the workspace at `root`, in stage order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    /// The workspace root every path is relative to.
    pub root: PathBuf,
    /// The stages, sorted by number.
    pub stages: Vec<Stage>,
}

impl Catalog {
    /// Reads every stage under `root/exercises/`.
    pub fn load(root: &Path) -> Result<Catalog, ParseError> {
        let mut stages = Vec::new();
        for (number, dir) in stage_folders(root) {
            stages.push(load_stage(root, number, &dir)?);
        }
        Ok(Catalog {
            root: root.to_path_buf(),
            stages,
        })
    }

    /// The stage numbered `number`.
    pub fn stage(&self, number: u32) -> Option<&Stage> {
        self.stages.iter().find(|s| s.number == number)
    }

    /// An absolute path for a repo-relative one.
    pub fn path(&self, relative: &Path) -> PathBuf {
        self.root.join(relative)
    }
}

/// The folders `exercises/NN-name/` that hold a `course.toml`, with their number,
/// sorted by number; paths are repo-relative.
pub fn stage_folders(root: &Path) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = fs::read_dir(root.join("exercises")) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let number = folder_number(&name)?;
            let relative = Path::new("exercises").join(&name);
            root.join(&relative)
                .join("course.toml")
                .is_file()
                .then_some((number, relative))
        })
        .collect();
    found.sort();
    found
}

/// The `NN` of a folder named `NN-name`.
pub fn folder_number(name: &str) -> Option<u32> {
    let (digits, rest) = name.split_once('-')?;
    if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_digit()) || rest.is_empty() {
        return None;
    }
    digits.parse().ok()
}

fn load_stage(root: &Path, folder_number: u32, dir: &Path) -> Result<Stage, ParseError> {
    let file = dir.join("course.toml");
    let text = fs::read_to_string(root.join(&file)).map_err(|e| ParseError {
        file: file.clone(),
        line: 0,
        message: format!("cannot read: {e}"),
    })?;
    let doc = toml_subset::parse(&file, &text)?;
    let fields = Fields { file: &file };

    fields.only_keys(&doc.top, &["stage", "title", "chapter", "crate"])?;
    let number = fields.int(&doc.top, "stage")?;
    if number != folder_number {
        let line = doc.top.get("stage").map_or(0, |e| e.line);
        return Err(fields.error(
            line,
            format!(
                "stage = {number}, but the folder `{}` says stage {folder_number}",
                dir.display()
            ),
        ));
    }
    let title = fields.string(&doc.top, "title")?;
    let chapter = PathBuf::from(fields.string(&doc.top, "chapter")?);
    let reference = PathBuf::from(fields.string(&doc.top, "crate")?);

    let mut exercises: Vec<Exercise> = Vec::new();
    for table in &doc.tables {
        if table.name != "exercise" {
            return Err(fields.error(
                table.line,
                format!("unknown table `[[{}]]`; only `[[exercise]]`", table.name),
            ));
        }
        fields.only_keys(
            table,
            &[
                "id", "title", "file", "solution", "section", "chapter", "hole", "needs",
            ],
        )?;
        let id = fields.int(table, "id")?;
        if let Some(last) = exercises.last()
            && id <= last.id
        {
            return Err(fields.error(
                table.get("id").map_or(table.line, |e| e.line),
                format!(
                    "exercise id {id} comes after id {}; ids must be unique and increasing",
                    last.id
                ),
            ));
        }
        if id == 0 {
            return Err(fields.error(table.line, "exercise ids start at 1".to_string()));
        }
        exercises.push(Exercise {
            id,
            title: fields.string(table, "title")?,
            file: PathBuf::from(fields.string(table, "file")?),
            solution: PathBuf::from(fields.string(table, "solution")?),
            section: fields.string(table, "section")?,
            chapter: PathBuf::from(fields.string(table, "chapter")?),
            hole: table
                .get("hole")
                .map(|_| fields.string(table, "hole"))
                .transpose()?,
            needs: fields.ints(table, "needs")?,
        });
    }
    if exercises.is_empty() {
        return Err(fields.error(0, "no [[exercise]] tables".to_string()));
    }
    for (exercise, table) in exercises.iter().zip(&doc.tables) {
        for need in &exercise.needs {
            if *need == exercise.id || !exercises.iter().any(|e| e.id == *need) {
                return Err(fields.error(
                    table.get("needs").map_or(table.line, |e| e.line),
                    format!(
                        "exercise {} needs exercise {need}, which is not another exercise of this stage",
                        exercise.id
                    ),
                ));
            }
        }
    }
    let package = manifest::package_name(&root.join(dir).join("Cargo.toml"))?;
    Ok(Stage {
        number,
        title,
        chapter,
        reference,
        dir: dir.to_path_buf(),
        package,
        exercises,
    })
}

/// Typed access to a table's entries, with errors located in `file`.
struct Fields<'a> {
    file: &'a Path,
}

impl Fields<'_> {
    fn error(&self, line: usize, message: String) -> ParseError {
        ParseError {
            file: self.file.to_path_buf(),
            line,
            message,
        }
    }

    fn entry<'t>(&self, table: &'t Table, key: &str) -> Result<&'t Entry, ParseError> {
        table.get(key).ok_or_else(|| {
            let place = if table.name.is_empty() {
                "at the top of the file".to_string()
            } else {
                format!("in this [[{}]] table", table.name)
            };
            self.error(table.line, format!("missing `{key}` {place}"))
        })
    }

    fn string(&self, table: &Table, key: &str) -> Result<String, ParseError> {
        let entry = self.entry(table, key)?;
        match &entry.value {
            Value::Str(s) if !s.trim().is_empty() => Ok(s.clone()),
            Value::Str(_) => Err(self.error(entry.line, format!("`{key}` is empty"))),
            Value::Int(_) | Value::Ints(_) => {
                Err(self.error(entry.line, format!("`{key}` must be a \"string\"")))
            }
        }
    }

    fn int(&self, table: &Table, key: &str) -> Result<u32, ParseError> {
        let entry = self.entry(table, key)?;
        match entry.value {
            Value::Int(n) => u32::try_from(n)
                .map_err(|_| self.error(entry.line, format!("`{key}` is too large"))),
            Value::Str(_) | Value::Ints(_) => Err(self.error(
                entry.line,
                format!("`{key}` must be a number, without quotes"),
            )),
        }
    }

    /// A list of exercise ids; an absent key is an empty list.
    fn ints(&self, table: &Table, key: &str) -> Result<Vec<u32>, ParseError> {
        let Some(entry) = table.get(key) else {
            return Ok(Vec::new());
        };
        match &entry.value {
            Value::Ints(items) => items
                .iter()
                .map(|&n| {
                    u32::try_from(n)
                        .map_err(|_| self.error(entry.line, format!("`{key}`: {n} is too large")))
                })
                .collect(),
            _ => Err(self.error(
                entry.line,
                format!("`{key}` must be a list of exercise ids, e.g. [2]"),
            )),
        }
    }

    fn only_keys(&self, table: &Table, allowed: &[&str]) -> Result<(), ParseError> {
        match table
            .entries
            .iter()
            .find(|e| !allowed.contains(&e.key.as_str()))
        {
            Some(e) => Err(self.error(
                e.line,
                format!(
                    "unknown key `{}` (expected one of: {})",
                    e.key,
                    allowed.join(", ")
                ),
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh scratch workspace under the system temp dir.
    fn scratch() -> PathBuf {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "oneloop-course-catalog-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    const STAGE: &str = "stage = 1\ntitle = \"Coroutines\"\n\
        chapter = \"book/src/ch01/index.md\"\ncrate = \"crates/01-co\"\n\n\
        [[exercise]]\nid = 1\ntitle = \"Count down\"\nfile = \"exercises/01-co/src/a.rs\"\n\
        solution = \"crates/01-co/src/a.rs\"\nsection = \"1.2\"\nchapter = \"book/src/ch01/a.md\"\n";

    #[test]
    fn loads_stages_in_order_and_skips_unfinished_folders() {
        let root = scratch();
        write(&root, "exercises/01-co/course.toml", STAGE);
        write(
            &root,
            "exercises/01-co/Cargo.toml",
            "[package]\nname = \"ex01-co\"\n",
        );
        write(
            &root,
            "exercises/02-later/Cargo.toml",
            "[package]\nname = \"ex02\"\n",
        );
        write(&root, "exercises/notes/course.toml", "not a stage");
        let catalog = Catalog::load(&root).unwrap();
        assert_eq!(catalog.stages.len(), 1);
        let stage = &catalog.stages[0];
        assert_eq!(stage.number, 1);
        assert_eq!(stage.package, "ex01-co");
        assert_eq!(stage.dir, Path::new("exercises/01-co"));
        assert_eq!(stage.exercises[0].section, "1.2");
        assert_eq!(stage.exercise(1).unwrap().title, "Count down");
    }

    #[test]
    fn a_wrong_stage_number_or_missing_key_is_located() {
        let root = scratch();
        write(&root, "exercises/03-co/course.toml", STAGE);
        write(
            &root,
            "exercises/03-co/Cargo.toml",
            "[package]\nname = \"ex03\"\n",
        );
        let err = Catalog::load(&root).unwrap_err().to_string();
        assert_eq!(
            err,
            "exercises/03-co/course.toml:1: stage = 1, but the folder `exercises/03-co` says stage 3"
        );

        let root = scratch();
        let without_section = STAGE.replace("section = \"1.2\"\n", "");
        write(&root, "exercises/01-co/course.toml", &without_section);
        let err = Catalog::load(&root).unwrap_err().to_string();
        assert_eq!(
            err,
            "exercises/01-co/course.toml:6: missing `section` in this [[exercise]] table"
        );
    }

    #[test]
    fn reads_the_hole_hash_and_the_exercises_needed() {
        let root = scratch();
        let two = STAGE.replace("id = 1\n", "id = 1\nneeds = [2]\nhole = \"fnv1a64:00\"\n")
            + "\n[[exercise]]\nid = 2\ntitle = \"Two\"\nfile = \"f.rs\"\nsolution = \"s.rs\"\n\
               section = \"1.3\"\nchapter = \"c.md\"\n";
        write(&root, "exercises/01-co/course.toml", &two);
        write(
            &root,
            "exercises/01-co/Cargo.toml",
            "[package]\nname = \"ex01-co\"\n",
        );
        let catalog = Catalog::load(&root).unwrap();
        let stage = &catalog.stages[0];
        assert_eq!(stage.exercises[0].needs, vec![2]);
        assert_eq!(stage.exercises[0].hole.as_deref(), Some("fnv1a64:00"));
        assert_eq!(stage.exercises[1].needs, Vec::<u32>::new());
        assert_eq!(stage.exercises[1].hole, None);

        write(
            &root,
            "exercises/01-co/course.toml",
            &two.replace("needs = [2]", "needs = [3]"),
        );
        let err = Catalog::load(&root).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "exercise 1 needs exercise 3, which is not another exercise of this stage"
            ),
            "{err}"
        );
    }

    #[test]
    fn folder_numbers() {
        assert_eq!(folder_number("01-coroutine"), Some(1));
        assert_eq!(folder_number("12-x"), Some(12));
        assert_eq!(folder_number("1-x"), None);
        assert_eq!(folder_number("01-"), None);
        assert_eq!(folder_number("ab-x"), None);
    }
}
