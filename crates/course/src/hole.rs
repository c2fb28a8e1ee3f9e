//! Telling an untouched hole file from the learner's work.
//!
//! Each `[[exercise]]` of a `course.toml` records the hash of its hole file as the
//! course ships it: `hole = "fnv1a64:…"`. A file that still hashes to that value is
//! untouched, so it must hold its `todo!` holes and its tests must fail. A file with any
//! other hash holds the learner's work: its holes are gone on purpose, and a finished
//! course is green. This works the same whether the learner committed their solutions
//! or has no git history at all, because only the file's text is read.
//!
//! The hash is FNV-1a over 64 bits: a few lines of std, no dependency. It only has to
//! notice an edit, not resist a forgery. Line endings are read as `\n`, so a checkout
//! that turned them into `\r\n` still matches.

use std::fs;
use std::path::Path;

use crate::catalog::{Challenge, Exercise};

/// The prefix that names the hash function in a recorded `hole`.
pub const PREFIX: &str = "fnv1a64:";

/// FNV-1a, 64 bits, over `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// The value a `course.toml` records for a hole file holding `text`.
pub fn hole_hash(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    format!("{PREFIX}{:016x}", fnv1a64(text.as_bytes()))
}

/// What an exercise's file is, compared with the hash its `course.toml` records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoleFile {
    /// The file is exactly the hole the course ships.
    Pristine,
    /// The file was edited: the learner's work.
    Edited {
        /// The file's hash now.
        hash: String,
    },
    /// The `course.toml` records no hash for this exercise.
    Unrecorded {
        /// The file's hash now (the value to record, if the file is pristine).
        hash: String,
    },
    /// The file cannot be read.
    Unreadable(String),
}

impl HoleFile {
    /// The file of `exercise`, under the workspace `root`, compared with its hash.
    pub fn of(root: &Path, exercise: &Exercise) -> HoleFile {
        HoleFile::at(root, &exercise.file, exercise.hole.as_deref())
    }

    /// A stage's challenge file, under the workspace `root`, compared with its hash.
    pub fn of_challenge(root: &Path, challenge: &Challenge) -> HoleFile {
        HoleFile::at(root, &challenge.file, challenge.hole.as_deref())
    }

    /// The repo-relative `file` under `root`, compared with the `recorded` hash.
    pub fn at(root: &Path, file: &Path, recorded: Option<&str>) -> HoleFile {
        let text = match fs::read_to_string(root.join(file)) {
            Ok(text) => text,
            Err(e) => return HoleFile::Unreadable(format!("{}: {e}", file.display())),
        };
        let hash = hole_hash(&text);
        match recorded {
            None => HoleFile::Unrecorded { hash },
            Some(recorded) if *recorded == hash => HoleFile::Pristine,
            Some(_) => HoleFile::Edited { hash },
        }
    }

    /// The learner has written this file: its holes are no longer expected.
    pub fn is_edited(&self) -> bool {
        matches!(self, HoleFile::Edited { .. })
    }
}

/// Whether `text` holds `todo!("stage N, challenge…`, the hole of a challenge file.
pub fn has_challenge_hole(text: &str, stage: u32) -> bool {
    let message = format!("\"stage {stage}, challenge");
    text.match_indices("todo!(")
        .any(|(at, open)| text[at + open.len()..].trim_start().starts_with(&message))
}

/// Whether `text` holds `todo!("stage N, exercise M…` (rustfmt may break the line
/// after the parenthesis).
pub fn has_hole(text: &str, stage: u32, exercise: u32) -> bool {
    let message = format!("\"stage {stage}, exercise {exercise}");
    text.match_indices("todo!(").any(|(at, open)| {
        let rest = text[at + open.len()..].trim_start();
        rest.starts_with(&message)
            && !rest[message.len()..].starts_with(|c: char| c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_values() {
        // The empty input hashes to the offset basis; "a" and "foobar" are the
        // reference implementation's own test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn line_endings_do_not_change_the_hash_but_any_edit_does() {
        assert_eq!(hole_hash("a\nb\n"), hole_hash("a\r\nb\r\n"));
        assert_ne!(hole_hash("a\nb\n"), hole_hash("a\nb \n"));
        assert_eq!(hole_hash("foobar"), "fnv1a64:85944171f73967e8");
    }

    #[test]
    fn holes_are_found_however_rustfmt_wraps_them() {
        assert!(has_hole("todo!(\"stage 1, exercise 2: x\")", 1, 2));
        assert!(has_hole(
            "todo!(\n        \"stage 1, exercise 2: x\",\n    )",
            1,
            2
        ));
        assert!(!has_hole("todo!(\"stage 1, exercise 21: x\")", 1, 2));
        assert!(!has_hole("// stage 1, exercise 2\ntodo!()", 1, 2));
        assert!(has_challenge_hole(
            "todo!(\n    \"stage 4, challenge: the park; see chapter 4.2\"\n)",
            4
        ));
        assert!(!has_challenge_hole("todo!(\"stage 4, exercise 2: x\")", 4));
        assert!(!has_challenge_hole("todo!(\"stage 14, challenge: x\")", 4));
    }
}
