//! The directories a client may touch. Every path a tool receives is resolved against them:
//! relative paths against the first root, then canonicalised (symbolic links followed, `..`
//! removed) and accepted only when the result lies under a root. A path that does not exist yet
//! (an output directory) is checked through its nearest existing ancestor.

use std::path::{Component, Path, PathBuf};

use crate::ToolError;

/// The allowed roots, canonicalised.
#[derive(Clone, Debug)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

impl Roots {
    /// Canonicalises `roots`; a root that does not exist is an error.
    pub fn new(roots: &[PathBuf]) -> Result<Roots, std::io::Error> {
        let mut canonical = Vec::with_capacity(roots.len());
        for root in roots {
            let path = root.canonicalize().map_err(|error| {
                std::io::Error::new(error.kind(), format!("root {}: {error}", root.display()))
            })?;
            if !path.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    format!("root {} is not a directory", root.display()),
                ));
            }
            canonical.push(path);
        }
        if canonical.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "at least one --root is needed",
            ));
        }
        Ok(Roots { roots: canonical })
    }

    /// The roots.
    pub fn all(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The first root (relative paths are resolved against it).
    pub fn first(&self) -> &Path {
        &self.roots[0]
    }

    /// Resolves `given` to a canonical path under a root; with `must_exist`, a missing path is
    /// refused too.
    pub fn resolve(&self, given: &str, must_exist: bool) -> Result<PathBuf, ToolError> {
        if given.trim().is_empty() {
            return Err(ToolError::InvalidParams("empty path".into()));
        }
        if given.contains('\0') {
            return Err(ToolError::InvalidParams("a path may not contain NUL".into()));
        }
        let joined = {
            let path = Path::new(given);
            if path.is_absolute() { path.to_path_buf() } else { self.first().join(path) }
        };
        let canonical = joined
            .canonicalize()
            .ok()
            .or_else(|| Self::through_ancestor(&joined))
            .ok_or_else(|| ToolError::InvalidParams(format!("{given}: not a usable path")))?;
        if !self.roots.iter().any(|root| canonical.starts_with(root)) {
            return Err(ToolError::InvalidParams(format!(
                "{given}: outside the allowed roots ({})",
                self.roots.iter().map(|root| root.display().to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
        if must_exist && !canonical.exists() {
            return Err(ToolError::Failed(format!("{given}: no such file or directory")));
        }
        Ok(canonical)
    }

    /// The canonical form of a path that does not exist: its nearest existing ancestor
    /// canonicalised, with the rest appended (`..` in the rest is refused by returning `None`).
    fn through_ancestor(path: &Path) -> Option<PathBuf> {
        let mut rest = Vec::new();
        let mut current = path;
        loop {
            if let Ok(canonical) = current.canonicalize() {
                let mut result = canonical;
                for component in rest.iter().rev() {
                    result.push(component);
                }
                return Some(result);
            }
            let name = current.file_name()?;
            if Path::new(name).components().any(|component| !matches!(component, Component::Normal(_))) {
                return None;
            }
            rest.push(name.to_os_string());
            current = current.parent()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let directory = std::env::temp_dir().join(format!("ioscout-roots-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        let _ = std::fs::create_dir_all(directory.join("inside/sub"));
        directory
    }

    #[test]
    fn paths_outside_the_roots_are_refused() {
        let directory = scratch("outside");
        let roots = Roots::new(&[directory.join("inside")]);
        let Ok(roots) = roots else { panic!("roots") };
        assert!(roots.resolve("sub", true).is_ok());
        assert!(roots.resolve("sub/../..", true).is_err());
        assert!(roots.resolve("/etc/passwd", true).is_err());
        assert!(roots.resolve("../", false).is_err());
        assert!(roots.resolve("new/output", false).is_ok());
        assert!(matches!(roots.resolve("missing", true), Err(ToolError::Failed(_))));
        #[cfg(unix)]
        {
            let link = directory.join("inside/escape");
            let _ = std::os::unix::fs::symlink("/etc", &link);
            assert!(matches!(roots.resolve("escape", true), Err(ToolError::InvalidParams(_))));
            assert!(matches!(roots.resolve("escape/newfile", false), Err(ToolError::InvalidParams(_))));
        }
        let _ = std::fs::remove_dir_all(&directory);
    }
}
