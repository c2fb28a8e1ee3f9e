//! Where the course lives on disk: the workspace root and cargo's target directory.

use std::env;
use std::io;
use std::path::{Path, PathBuf};

use crate::manifest::Manifest;

/// Walks up from `start` to the first directory whose `Cargo.toml` has `[workspace]`.
pub fn find_root(start: &Path) -> io::Result<PathBuf> {
    let mut dir = Some(start);
    while let Some(current) = dir {
        // A manifest that does not parse is not the workspace's: keep walking up.
        if let Ok(manifest) = Manifest::read(current, Path::new("Cargo.toml"))
            && manifest.workspace.is_some()
        {
            return Ok(current.to_path_buf());
        }
        dir = current.parent();
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "no Cargo.toml with [workspace] in {} or any folder above it; \
             run this inside the oneloop workspace",
            start.display()
        ),
    ))
}

/// The workspace root found from the current directory.
pub fn current_root() -> io::Result<PathBuf> {
    find_root(&env::current_dir()?)
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set (relative to the current
/// directory, as cargo reads it), else `<root>/target`.
pub fn target_dir(root: &Path) -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                env::current_dir().map_or(dir.clone(), |cwd| cwd.join(dir))
            }
        }
        _ => root.join("target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_workspace_from_a_nested_folder() {
        // This crate sits two levels under the oneloop workspace root.
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = find_root(&here.join("src")).unwrap();
        assert!(root.join("crates").is_dir());
        assert_eq!(root, here.parent().unwrap().parent().unwrap());
    }
}
