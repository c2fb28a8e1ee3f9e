//! What the course reads from a `Cargo.toml`: the package name, the workspace's
//! dependencies, an exercise crate's `[lib]`, `[features]` and dependencies.
//!
//! Only those keys are in the schema; cargo's many others are ignored (unknown keys are
//! allowed here, unlike in `course.toml`, because cargo owns this format).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::toml_file::{self, ParseError};

/// The parts of a `Cargo.toml` the course and its checks use.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Manifest {
    /// `[package]`, absent in a virtual workspace manifest.
    pub package: Option<Package>,
    /// `[workspace]`, present only in the workspace root's manifest.
    pub workspace: Option<Workspace>,
    /// `[lib]`.
    pub lib: Option<Lib>,
    /// `[features]`: each feature and what it turns on.
    #[serde(default)]
    pub features: BTreeMap<String, Vec<String>>,
    /// `[dependencies]`.
    #[serde(default)]
    pub dependencies: BTreeMap<String, Dependency>,
    /// `[dev-dependencies]`.
    #[serde(default)]
    pub dev_dependencies: BTreeMap<String, Dependency>,
    /// `[build-dependencies]`.
    #[serde(default)]
    pub build_dependencies: BTreeMap<String, Dependency>,
}

/// `[package]`.
#[derive(Debug, Clone, Deserialize)]
pub struct Package {
    /// The package name.
    pub name: String,
}

/// `[workspace]`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Workspace {
    /// `[workspace.dependencies]`.
    #[serde(default)]
    pub dependencies: BTreeMap<String, Dependency>,
}

/// `[lib]`.
#[derive(Debug, Clone, Deserialize)]
pub struct Lib {
    /// `doctest = false` turns the crate's doctests off.
    pub doctest: Option<bool>,
}

/// One dependency: a version string, or a table.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Dependency {
    /// `name = "1.0"`.
    Version(String),
    /// `name = { path = "…", workspace = true, … }`.
    Detailed(DependencyTable),
}

/// The keys of a dependency table the course reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DependencyTable {
    /// `path = "…"`.
    pub path: Option<String>,
    /// `workspace = true`: the dependency is declared in `[workspace.dependencies]`.
    pub workspace: Option<bool>,
}

impl Dependency {
    /// The `path` of a path dependency.
    pub fn path(&self) -> Option<&str> {
        match self {
            Dependency::Version(_) => None,
            Dependency::Detailed(table) => table.path.as_deref(),
        }
    }
}

impl Manifest {
    /// Reads `root/relative`; errors name `relative`.
    pub fn read(root: &Path, relative: &Path) -> Result<Manifest, ParseError> {
        toml_file::read(root, relative)
    }

    /// Every dependency of the package, with its section's name.
    pub fn all_dependencies(&self) -> impl Iterator<Item = (&'static str, &str, &Dependency)> {
        let sections = [
            ("dependencies", &self.dependencies),
            ("dev-dependencies", &self.dev_dependencies),
            ("build-dependencies", &self.build_dependencies),
        ];
        sections.into_iter().flat_map(|(section, deps)| {
            deps.iter()
                .map(move |(name, dep)| (section, name.as_str(), dep))
        })
    }
}

/// The `name` under `[package]` in `root/relative`.
pub fn package_name(root: &Path, relative: &Path) -> Result<String, ParseError> {
    Manifest::read(root, relative)?
        .package
        .map(|p| p.name)
        .ok_or_else(|| ParseError::new(relative, 0, "no [package] table"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_course_needs_and_ignores_the_rest() {
        let text = "[package]\nversion.workspace = true\nname = \"ex01-coroutine\"\n\
                    [lib]\ndoctest = false\n[features]\nsolution = []\n\
                    [dependencies]\na.workspace = true\nb = \"1\"\nc = { path = \"../c\" }\n";
        let m: Manifest = toml_file::parse(Path::new("Cargo.toml"), text).unwrap();
        assert_eq!(m.package.unwrap().name, "ex01-coroutine");
        assert_eq!(m.lib.unwrap().doctest, Some(false));
        assert!(m.features.contains_key("solution"));
        assert_eq!(m.dependencies["c"].path(), Some("../c"));
        assert_eq!(m.dependencies["b"].path(), None);
        assert!(m.workspace.is_none());
    }
}
