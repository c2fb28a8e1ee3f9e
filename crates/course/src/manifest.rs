//! What the course reads from a `Cargo.toml`: the package name, the workspace's
//! dependencies, an exercise crate's `[lib]`, `[features]` and dependencies.
//!
//! Only those keys are in the schema; cargo's many others are ignored (unknown keys are
//! allowed here, unlike in `course.toml`, because cargo owns this format).

use std::collections::BTreeMap;
use std::path::Path;

use crate::toml_file::{self, ParseError, Table};

/// The parts of a `Cargo.toml` the course and its checks use.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// `[package]`, absent in a virtual workspace manifest.
    pub package: Option<Package>,
    /// `[workspace]`, present only in the workspace root's manifest.
    pub workspace: Option<Workspace>,
    /// `[lib]`.
    pub lib: Option<Lib>,
    /// The names in `[features]`.
    pub features: Vec<String>,
    /// `[dependencies]`, `[dev-dependencies]` and `[build-dependencies]`, by section.
    pub dependencies: BTreeMap<&'static str, BTreeMap<String, Dependency>>,
}

/// `[package]`.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package name.
    pub name: String,
}

/// `[workspace]`.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// `[workspace.dependencies]`.
    pub dependencies: BTreeMap<String, Dependency>,
}

/// `[lib]`.
#[derive(Debug, Clone)]
pub struct Lib {
    /// `doctest = false` turns the crate's doctests off.
    pub doctest: Option<bool>,
}

/// One dependency, as far as the course cares: where it comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dependency {
    /// `path = "…"` of a path dependency.
    pub path: Option<String>,
}

/// The dependency sections of a package manifest.
pub const DEPENDENCY_SECTIONS: [&str; 3] =
    ["dependencies", "dev-dependencies", "build-dependencies"];

fn dependencies(table: Option<Table<'_, '_>>) -> Result<BTreeMap<String, Dependency>, ParseError> {
    let Some(table) = table else {
        return Ok(BTreeMap::new());
    };
    table
        .entries()
        .map(|(name, value)| {
            // `name = "1.0"` has no path; a table may (`{ path = "…" }`).
            let path = match table.opt_table(name) {
                Ok(Some(dep)) => dep.opt_string("path")?.map(|p| p.into_inner()),
                _ if value.get_ref().is_str() => None,
                _ => return Err(table.error(value.span(), name, "expected a version or a table")),
            };
            Ok((name.to_string(), Dependency { path }))
        })
        .collect()
}

impl Manifest {
    /// Reads `root/relative`; errors name `relative`.
    pub fn read(root: &Path, relative: &Path) -> Result<Manifest, ParseError> {
        let mut text = String::new();
        let doc = toml_file::read(root, relative, &mut text)?;
        Manifest::from_table(&doc.root())
    }

    /// [`Manifest::read`] on text already read; `file` names it in errors.
    pub fn parse(file: &Path, text: &str) -> Result<Manifest, ParseError> {
        Manifest::from_table(&toml_file::parse(file, text)?.root())
    }

    fn from_table(root: &Table<'_, '_>) -> Result<Manifest, ParseError> {
        let package = match root.opt_table("package")? {
            Some(package) => Some(Package {
                name: package.string("name")?.into_inner(),
            }),
            None => None,
        };
        let workspace = match root.opt_table("workspace")? {
            Some(workspace) => Some(Workspace {
                dependencies: dependencies(workspace.opt_table("dependencies")?)?,
            }),
            None => None,
        };
        let lib = match root.opt_table("lib")? {
            Some(lib) => Some(Lib {
                doctest: lib.opt_bool("doctest")?,
            }),
            None => None,
        };
        let features = match root.opt_table("features")? {
            Some(features) => features
                .entries()
                .map(|(name, _)| name.to_string())
                .collect(),
            None => Vec::new(),
        };
        let mut deps = BTreeMap::new();
        for section in DEPENDENCY_SECTIONS {
            deps.insert(section, dependencies(root.opt_table(section)?)?);
        }
        Ok(Manifest {
            package,
            workspace,
            lib,
            features,
            dependencies: deps,
        })
    }

    /// Every dependency of the package, with its section's name.
    pub fn all_dependencies(&self) -> impl Iterator<Item = (&'static str, &str, &Dependency)> {
        self.dependencies.iter().flat_map(|(section, deps)| {
            deps.iter()
                .map(move |(name, dep)| (*section, name.as_str(), dep))
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
        let m = Manifest::parse(Path::new("Cargo.toml"), text).unwrap();
        assert_eq!(m.package.unwrap().name, "ex01-coroutine");
        assert_eq!(m.lib.unwrap().doctest, Some(false));
        assert_eq!(m.features, ["solution"]);
        let deps = &m.dependencies["dependencies"];
        assert_eq!(deps["c"].path.as_deref(), Some("../c"));
        assert_eq!(deps["b"].path, None);
        assert_eq!(deps["a"].path, None);
        assert!(m.workspace.is_none());
    }

    #[test]
    fn a_wrong_type_is_located() {
        let err = Manifest::parse(Path::new("x/Cargo.toml"), "[package]\nname = 1\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x/Cargo.toml:2: `package.name`: expected a \"string\", found integer"
        );
    }
}
