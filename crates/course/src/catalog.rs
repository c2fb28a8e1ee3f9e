//! The stage catalog: every `exercises/NN-name/course.toml`, read and checked.
//!
//! A stage is a folder `exercises/NN-name/` that holds a `course.toml`; a numbered
//! folder without one is a stage still being written and is skipped. A `course.toml`
//! holds only what the layout cannot tell ([`CourseToml`]); the rest is derived:
//!
//! | fact | where it comes from |
//! |---|---|
//! | the stage number | the folder's `NN` |
//! | the reference crate | `crates/NN-name`, the same folder name |
//! | the chapter and the stage's title | the chapter `book/src/SUMMARY.md` numbers `NN` |
//! | the package name | the exercise crate's `Cargo.toml` |
//! | an exercise's hole file and solution | `exercises/NN-name/src/<module>.rs` and `crates/NN-name/src/<module>.rs` |
//! | an exercise's page and section number | its `page` in the chapter's folder, numbered by `SUMMARY.md` |
//!
//! Paths in the catalog are relative to the workspace root.

use std::fs;
use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::manifest;
use crate::summary::{self, SummaryItem};
use crate::toml_file::{self, Document, ParseError};

/// The schema of a `course.toml`: the exercises, in id order.
///
/// ```toml
/// [[exercise]]
/// id = 1
/// title = "The wake path: one step, pushed once"
/// module = "wake"           # exercises/04-core/src/wake.rs, solved by crates/04-core/src/wake.rs
/// page = "handles.md"       # book/src/ch04-core/handles.md
/// hole = "fnv1a64:…"        # the hash of the hole file as shipped
/// needs = [2]               # optional: exercises whose code these tests also run
///
/// [challenge]               # optional: the stage's one challenge
/// title = "The whole event loop: run_once, park, run_forever"
/// module = "event_loop"     # exercises/04-core/challenge/event_loop.rs, solved by crates/04-core/src/event_loop.rs
/// page = "turn.md"
/// hole = "fnv1a64:…"
/// graded = [2, 4]           # the exercises whose tests grade it
/// model = "loom"            # optional: tests/loom.rs, a loom model that grades it too
/// ```
#[derive(Debug, Clone)]
pub struct CourseToml {
    /// The `[[exercise]]` tables.
    pub exercises: Vec<ExerciseToml>,
    /// The `[challenge]` table, if the stage has one.
    pub challenge: Option<ChallengeToml>,
}

/// The `[challenge]` table of a `course.toml`.
#[derive(Debug, Clone)]
pub struct ChallengeToml {
    /// What the learner writes, in a few words.
    pub title: Spanned<String>,
    /// The reference module the challenge file replaces.
    pub module: Spanned<String>,
    /// The page that explains it, relative to the stage's chapter folder.
    pub page: Spanned<String>,
    /// The hash of the challenge file as the course ships it.
    pub hole: Option<String>,
    /// The exercises whose tests grade the challenge.
    pub graded: Spanned<Vec<u32>>,
    /// The test target that model-checks it under `--cfg loom`, if any.
    pub model: Option<Spanned<String>>,
}

/// One `[[exercise]]` of a `course.toml`.
#[derive(Debug, Clone)]
pub struct ExerciseToml {
    /// The exercise number, the `M` of its `exM_` tests.
    pub id: Spanned<u32>,
    /// What the learner writes, in a few words.
    pub title: Spanned<String>,
    /// The module the learner writes: the file's stem in both `src/` folders.
    pub module: Spanned<String>,
    /// The page that explains it, relative to the stage's chapter folder.
    pub page: Spanned<String>,
    /// The hash of the hole file as the course ships it (see [`crate::hole`]).
    pub hole: Option<String>,
    /// Exercises of the same stage whose code this one's tests run.
    pub needs: Option<Spanned<Vec<u32>>>,
}

impl CourseToml {
    /// Reads the schema from a parsed `course.toml`; any other key is an error.
    pub fn from_document(doc: &Document<'_>) -> Result<CourseToml, ParseError> {
        let root = doc.root();
        root.only(&["exercise", "challenge"])?;
        let exercises = root
            .tables("exercise")?
            .iter()
            .map(|table| {
                table.only(&["id", "title", "module", "page", "hole", "needs"])?;
                Ok(ExerciseToml {
                    id: table.int("id")?,
                    title: table.string("title")?,
                    module: table.string("module")?,
                    page: table.string("page")?,
                    hole: table.opt_string("hole")?.map(Spanned::into_inner),
                    needs: table.opt_ints("needs")?,
                })
            })
            .collect::<Result<Vec<_>, ParseError>>()?;
        let challenge = match root.opt_table("challenge")? {
            None => None,
            Some(table) => {
                table.only(&["title", "module", "page", "hole", "graded", "model"])?;
                let graded = match table.opt_ints("graded")? {
                    Some(graded) => graded,
                    None => {
                        return Err(table.error(
                            table.get("title").map_or(0..0, |value| value.span()),
                            "graded",
                            "missing in the [challenge] table",
                        ));
                    }
                };
                Some(ChallengeToml {
                    title: table.string("title")?,
                    module: table.string("module")?,
                    page: table.string("page")?,
                    hole: table.opt_string("hole")?.map(Spanned::into_inner),
                    graded,
                    model: table.opt_string("model")?,
                })
            }
        };
        Ok(CourseToml {
            exercises,
            challenge,
        })
    }
}

/// One stage of the course.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// The stage number (the `NN` of the folder).
    pub number: u32,
    /// The stage's title: its chapter's, in `SUMMARY.md`.
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
    /// The stage's optional challenge.
    pub challenge: Option<Challenge>,
}

/// The folder of an exercise crate that holds its challenge file.
pub const CHALLENGE_DIR: &str = "challenge";

/// A stage's optional challenge: the mechanism of one file of the reference, written by
/// the learner from its signatures and the chapter alone.
///
/// The exercise crate's `challenge` feature compiles `exercises/NN-name/challenge/<module>.rs`
/// in place of the reference's `src/<module>.rs`, and the reference's files in place of
/// every exercise's hole, so that only the challenge is missing. The challenge is graded
/// by the tests of the exercises in `graded`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// What the learner writes, in a few words.
    pub title: String,
    /// The file the learner edits, repo-relative.
    pub file: PathBuf,
    /// The reference file it replaces, repo-relative.
    pub solution: PathBuf,
    /// The book section that explains it, as mdBook numbers it.
    pub section: String,
    /// That section's page, repo-relative.
    pub chapter: PathBuf,
    /// The hash of the challenge file as the course ships it (see [`crate::hole`]).
    pub hole: Option<String>,
    /// The exercises whose tests grade the challenge, in id order.
    pub graded: Vec<u32>,
    /// The test target (`tests/<model>.rs` of the exercise crate) that also grades it:
    /// a loom model, built and run under `--cfg loom` in a target directory of its own,
    /// after the graded tests pass. The graded tests meet the orders real threads
    /// happen to take; loom tries every one.
    pub model: Option<String>,
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

/// The book's table of contents, which numbers the sections.
const SUMMARY: &str = "book/src/SUMMARY.md";

impl Catalog {
    /// Reads every stage under `root/exercises/`.
    pub fn load(root: &Path) -> Result<Catalog, ParseError> {
        let folders = stage_folders(root);
        let summary = if folders.is_empty() {
            Vec::new()
        } else {
            let text = fs::read_to_string(root.join(SUMMARY))
                .map_err(|e| ParseError::new(Path::new(SUMMARY), 0, format!("cannot read: {e}")))?;
            summary::parse(&text)
        };
        let mut stages = Vec::new();
        for (number, dir) in folders {
            stages.push(load_stage(root, number, &dir, &summary)?);
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

fn load_stage(
    root: &Path,
    number: u32,
    dir: &Path,
    summary: &[SummaryItem],
) -> Result<Stage, ParseError> {
    let file = dir.join("course.toml");
    let mut text = String::new();
    let doc = toml_file::read(root, &file, &mut text)?;
    let toml = CourseToml::from_document(&doc)?;
    let error = |span: std::ops::Range<usize>, key: &str, message: String| {
        doc.error(span, &format!("exercise.{key}"), message)
    };
    if toml.exercises.is_empty() {
        return Err(ParseError::new(&file, 0, "no [[exercise]] tables"));
    }
    let folder = dir.file_name().map(PathBuf::from).unwrap_or_default();
    let reference = Path::new("crates").join(&folder);
    let number_text = number.to_string();
    let Some((title, chapter)) = summary.iter().find_map(|item| {
        let path = item.path.as_ref()?;
        (item.number.as_deref() == Some(number_text.as_str()))
            .then(|| (item.title.clone(), Path::new("book/src").join(path)))
    }) else {
        return Err(ParseError::new(
            &file,
            0,
            format!("{SUMMARY} has no chapter numbered {number} for this stage"),
        ));
    };
    let book = chapter.parent().map(Path::to_path_buf).unwrap_or_default();

    let mut exercises: Vec<Exercise> = Vec::new();
    for entry in &toml.exercises {
        let id = *entry.id.get_ref();
        if id == 0 {
            return Err(error(
                entry.id.span(),
                "id",
                "exercise ids start at 1".into(),
            ));
        }
        if let Some(last) = exercises.last()
            && id <= last.id
        {
            return Err(error(
                entry.id.span(),
                "id",
                format!(
                    "exercise id {id} comes after id {}; ids must be unique and increasing",
                    last.id
                ),
            ));
        }
        let module = entry.module.get_ref();
        if module.is_empty()
            || !module
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(error(
                entry.module.span(),
                "module",
                format!("`{module}` is not a module name (the file's stem, e.g. \"turn\")"),
            ));
        }
        let page = book.join(entry.page.get_ref());
        let in_summary = page
            .strip_prefix("book/src")
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .ok()
            .and_then(|p| {
                summary
                    .iter()
                    .find(|item| item.path.as_deref() == Some(p.as_str()))
            });
        let Some(section) = in_summary.and_then(|item| item.number.clone()) else {
            return Err(error(
                entry.page.span(),
                "page",
                format!("{} is not a numbered chapter of {SUMMARY}", page.display()),
            ));
        };
        exercises.push(Exercise {
            id,
            title: entry.title.get_ref().clone(),
            file: dir.join("src").join(format!("{module}.rs")),
            solution: reference.join("src").join(format!("{module}.rs")),
            section,
            chapter: page,
            hole: entry.hole.clone(),
            needs: entry
                .needs
                .as_ref()
                .map(|n| n.get_ref().clone())
                .unwrap_or_default(),
        });
    }
    for (exercise, entry) in exercises.iter().zip(&toml.exercises) {
        for need in &exercise.needs {
            if *need == exercise.id || !exercises.iter().any(|e| e.id == *need) {
                return Err(error(
                    entry.needs.as_ref().map_or(entry.id.span(), Spanned::span),
                    "needs",
                    format!(
                        "exercise {} needs exercise {need}, which is not another exercise of this stage",
                        exercise.id
                    ),
                ));
            }
        }
    }
    let challenge = match &toml.challenge {
        None => None,
        Some(entry) => {
            let error = |span: std::ops::Range<usize>, key: &str, message: String| {
                doc.error(span, &format!("challenge.{key}"), message)
            };
            let module = entry.module.get_ref();
            if !is_module_name(module) {
                return Err(error(
                    entry.module.span(),
                    "module",
                    format!("`{module}` is not a module name (the file's stem, e.g. \"driver\")"),
                ));
            }
            let page = book.join(entry.page.get_ref());
            let Some(section) = section_of(summary, &page) else {
                return Err(error(
                    entry.page.span(),
                    "page",
                    format!("{} is not a numbered chapter of {SUMMARY}", page.display()),
                ));
            };
            let mut graded = entry.graded.get_ref().clone();
            graded.sort_unstable();
            graded.dedup();
            if graded.is_empty() || graded.iter().any(|id| stage_has(&exercises, *id).is_none()) {
                return Err(error(
                    entry.graded.span(),
                    "graded",
                    "must name one or more exercises of this stage".into(),
                ));
            }
            let model = match &entry.model {
                None => None,
                Some(model) => {
                    let name = model.get_ref();
                    if !is_module_name(name)
                        || !root
                            .join(dir)
                            .join("tests")
                            .join(format!("{name}.rs"))
                            .is_file()
                    {
                        return Err(error(
                            model.span(),
                            "model",
                            format!(
                                "`{name}` names no test file {}",
                                dir.join("tests").join(format!("{name}.rs")).display()
                            ),
                        ));
                    }
                    Some(name.clone())
                }
            };
            Some(Challenge {
                title: entry.title.get_ref().clone(),
                file: dir.join(CHALLENGE_DIR).join(format!("{module}.rs")),
                solution: reference.join("src").join(format!("{module}.rs")),
                section,
                chapter: page,
                hole: entry.hole.clone(),
                graded,
                model,
            })
        }
    };
    let package = manifest::package_name(root, &dir.join("Cargo.toml"))?;
    Ok(Stage {
        number,
        title,
        chapter,
        reference,
        dir: dir.to_path_buf(),
        package,
        exercises,
        challenge,
    })
}

fn is_module_name(module: &str) -> bool {
    !module.is_empty()
        && module
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn stage_has(exercises: &[Exercise], id: u32) -> Option<&Exercise> {
    exercises.iter().find(|e| e.id == id)
}

/// The section number `SUMMARY.md` gives the repo-relative `page`.
fn section_of(summary: &[SummaryItem], page: &Path) -> Option<String> {
    let relative = page
        .strip_prefix("book/src")
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    summary
        .iter()
        .find(|item| item.path.as_deref() == Some(relative.as_str()))
        .and_then(|item| item.number.clone())
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

    const STAGE: &str = "\n\n\
        [[exercise]]\nid = 1\ntitle = \"Count down\"\nmodule = \"a\"\npage = \"a.md\"\n";

    const SUMMARY_MD: &str = "# Summary\n\n- [Coroutines](ch01-co/index.md)\n  \
        - [A](ch01-co/a.md)\n  - [B](ch01-co/b.md)\n";

    /// A workspace with stage 1 described by `course`.
    fn stage_one(course: &str) -> PathBuf {
        let root = scratch();
        write(&root, "exercises/01-co/course.toml", course);
        write(
            &root,
            "exercises/01-co/Cargo.toml",
            "[package]\nname = \"ex01-co\"\n",
        );
        write(&root, SUMMARY, SUMMARY_MD);
        root
    }

    fn error(course: &str) -> String {
        Catalog::load(&stage_one(course)).unwrap_err().to_string()
    }

    #[test]
    fn loads_stages_in_order_and_derives_the_rest_from_the_layout() {
        let root = stage_one(STAGE);
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
        assert_eq!(stage.title, "Coroutines", "the chapter's title");
        assert_eq!(stage.package, "ex01-co");
        assert_eq!(stage.dir, Path::new("exercises/01-co"));
        assert_eq!(stage.reference, Path::new("crates/01-co"));
        assert_eq!(stage.chapter, Path::new("book/src/ch01-co/index.md"));
        let exercise = stage.exercise(1).unwrap();
        assert_eq!(exercise.title, "Count down");
        assert_eq!(exercise.section, "1.1");
        assert_eq!(exercise.file, Path::new("exercises/01-co/src/a.rs"));
        assert_eq!(exercise.solution, Path::new("crates/01-co/src/a.rs"));
        assert_eq!(exercise.chapter, Path::new("book/src/ch01-co/a.md"));
    }

    #[test]
    fn a_malformed_course_toml_names_the_file_and_the_key() {
        assert_eq!(
            error(&STAGE.replace("page = \"a.md\"\n", "")),
            "exercises/01-co/course.toml:3: `exercise.page`: missing in this [[exercise]] table"
        );
        assert_eq!(
            error(&STAGE.replace("id = 1", "id = \"1\"")),
            "exercises/01-co/course.toml:4: `exercise.id`: expected a number, without quotes, \
             found string"
        );
        assert!(
            error(&format!("stage = 1\n{STAGE}"))
                .starts_with("exercises/01-co/course.toml:1: `stage`: unknown key"),
        );
        assert_eq!(
            error(&STAGE.replace("a.md", "c.md")),
            "exercises/01-co/course.toml:7: `exercise.page`: \
             book/src/ch01-co/c.md is not a numbered chapter of book/src/SUMMARY.md"
        );
        assert_eq!(
            error(&STAGE.replace("\"a\"", "\"a.rs\"")),
            "exercises/01-co/course.toml:6: `exercise.module`: `a.rs` is not a module name \
             (the file's stem, e.g. \"turn\")"
        );
    }

    #[test]
    fn a_stage_without_its_numbered_chapter_is_an_error() {
        let root = stage_one(STAGE);
        write(&root, SUMMARY, "[Introduction](intro.md)\n");
        assert_eq!(
            Catalog::load(&root).unwrap_err().to_string(),
            "exercises/01-co/course.toml: book/src/SUMMARY.md has no chapter numbered 1 \
             for this stage"
        );
    }

    #[test]
    fn reads_the_hole_hash_and_the_exercises_needed() {
        let two = STAGE.replace("id = 1\n", "id = 1\nneeds = [2]\nhole = \"fnv1a64:00\"\n")
            + "\n[[exercise]]\nid = 2\ntitle = \"Two\"\nmodule = \"b\"\npage = \"b.md\"\n";
        let catalog = Catalog::load(&stage_one(&two)).unwrap();
        let stage = &catalog.stages[0];
        assert_eq!(stage.exercises[0].needs, vec![2]);
        assert_eq!(stage.exercises[0].hole.as_deref(), Some("fnv1a64:00"));
        assert_eq!(stage.exercises[1].needs, Vec::<u32>::new());
        assert_eq!(stage.exercises[1].hole, None);
        assert_eq!(stage.exercises[1].section, "1.2");

        let err = error(&two.replace("needs = [2]", "needs = [3]"));
        assert!(
            err.ends_with(
                "exercise 1 needs exercise 3, which is not another exercise of this stage"
            ),
            "{err}"
        );
        assert!(err.contains(":5: `exercise.needs`"), "{err}");
    }

    #[test]
    fn reads_the_challenge_and_checks_what_grades_it() {
        let with = format!(
            "{STAGE}\n[challenge]\ntitle = \"The whole of b\"\nmodule = \"b\"\npage = \"b.md\"\n\
             hole = \"fnv1a64:01\"\ngraded = [1]\n"
        );
        let catalog = Catalog::load(&stage_one(&with)).unwrap();
        let challenge = catalog.stages[0].challenge.as_ref().unwrap();
        assert_eq!(challenge.title, "The whole of b");
        assert_eq!(challenge.file, Path::new("exercises/01-co/challenge/b.rs"));
        assert_eq!(challenge.solution, Path::new("crates/01-co/src/b.rs"));
        assert_eq!(challenge.section, "1.2");
        assert_eq!(challenge.hole.as_deref(), Some("fnv1a64:01"));
        assert_eq!(challenge.graded, vec![1]);
        assert_eq!(
            Catalog::load(&stage_one(STAGE)).unwrap().stages[0].challenge,
            None
        );

        let err = error(&with.replace("graded = [1]", "graded = [2]"));
        assert!(
            err.ends_with("`challenge.graded`: must name one or more exercises of this stage"),
            "{err}"
        );
        let err = error(&with.replace("graded = [1]\n", ""));
        assert!(err.contains("`challenge.graded`: missing"), "{err}");
        let err = error(&with.replace("graded", "grade"));
        assert!(err.contains("`challenge.grade`: unknown key"), "{err}");
    }

    #[test]
    fn reads_the_model_that_grades_the_challenge_and_checks_its_file() {
        let with = format!(
            "{STAGE}\n[challenge]\ntitle = \"The whole of b\"\nmodule = \"b\"\npage = \"b.md\"\n\
             graded = [1]\nmodel = \"loom\"\n"
        );
        let root = stage_one(&with);
        let err = Catalog::load(&root).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "`challenge.model`: `loom` names no test file exercises/01-co/tests/loom.rs"
            ),
            "{err}"
        );
        write(&root, "exercises/01-co/tests/loom.rs", "");
        let catalog = Catalog::load(&root).unwrap();
        let challenge = catalog.stages[0].challenge.as_ref().unwrap();
        assert_eq!(challenge.model.as_deref(), Some("loom"));
        let err = error(&with.replace("\"loom\"", "\"../loom\""));
        assert!(err.contains("`../loom` names no test file"), "{err}");
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
