//! Input discovery: files, directories (recursively) and glob patterns to a sorted list of trace
//! files.
//!
//! # Overview
//!
//! [`discover`] expands what the user typed into [`TraceFile`]s. Directories contribute every
//! `*.pfw` and `*.pfw.gz` below them (DLIO's hidden `.trace*.pfw*` files included); a path that does
//! not exist but holds `*`, `?` or `[` is a glob. Compression is decided from the file's first bytes,
//! not its name. Paths that cannot be used come back as [`InputProblem`]s so the caller can report
//! them and read the rest.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How a trace file is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Plain text (`.pfw`).
    None,
    /// gzip, one member or many (`.pfw.gz`).
    Gzip,
}

/// One trace file to read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceFile {
    /// The path as found.
    pub path: PathBuf,
    /// Size on disk in bytes.
    pub size: u64,
    /// How it is stored.
    pub compression: Compression,
}

/// What trace files a set of inputs holds on disk: each file's path, size and modification
/// time, as [`discover`] finds them. Two snapshots differ when a file was added, grew or was
/// touched: how `analyze --follow` and the MCP session tool tell a trace still being written.
pub type Snapshot = Vec<(PathBuf, u64, Option<std::time::SystemTime>)>;

/// The [`Snapshot`] of `inputs` now.
pub fn snapshot<P: AsRef<Path>>(inputs: &[P]) -> Snapshot {
    let (files, _) = discover(inputs);
    files
        .into_iter()
        .map(|file| {
            let modified = std::fs::metadata(&file.path).and_then(|metadata| metadata.modified()).ok();
            (file.path, file.size, modified)
        })
        .collect()
}

/// A path that could not be used.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputProblem {
    /// The path or pattern as given.
    pub path: PathBuf,
    /// What went wrong.
    pub detail: String,
}

/// Whether a file name looks like a DFTracer trace.
pub fn is_trace_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else { return false };
    let name = name.to_ascii_lowercase();
    [".pfw", ".pfw.gz"].iter().any(|suffix| name.ends_with(suffix))
}

/// Expands `inputs` into trace files, in a stable order, without duplicates.
pub fn discover<P: AsRef<Path>>(inputs: &[P]) -> (Vec<TraceFile>, Vec<InputProblem>) {
    let mut paths = Vec::new();
    let mut problems = Vec::new();
    for input in inputs {
        let input = input.as_ref();
        if input.is_dir() {
            let before = paths.len();
            walk_directory(input, &mut paths, &mut problems);
            if paths.len() == before {
                problems.push(InputProblem {
                    path: input.to_path_buf(),
                    detail: "directory holds no *.pfw or *.pfw.gz file".into(),
                });
            }
        } else if input.exists() {
            paths.push(input.to_path_buf());
        } else if input.to_string_lossy().contains(['*', '?', '[']) {
            expand_glob(input, &mut paths, &mut problems);
        } else {
            problems
                .push(InputProblem { path: input.to_path_buf(), detail: "no such file or directory".into() });
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut files = Vec::new();
    for path in paths {
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if !seen.insert(key) {
            continue;
        }
        match describe(&path) {
            Ok(file) => files.push(file),
            Err(error) => problems.push(InputProblem { path, detail: error.to_string() }),
        }
    }
    (files, problems)
}

fn walk_directory(directory: &Path, paths: &mut Vec<PathBuf>, problems: &mut Vec<InputProblem>) {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(directory).follow_links(true) {
        match entry {
            Ok(entry) if entry.file_type().is_file() && is_trace_name(entry.path()) => {
                found.push(entry.into_path());
            }
            Ok(_) => {}
            Err(error) => problems.push(InputProblem {
                path: error.path().unwrap_or(directory).to_path_buf(),
                detail: error.to_string(),
            }),
        }
    }
    found.sort();
    paths.extend(found);
}

fn expand_glob(pattern: &Path, paths: &mut Vec<PathBuf>, problems: &mut Vec<InputProblem>) {
    let text = pattern.to_string_lossy();
    let entries = match glob::glob(&text) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(InputProblem {
                path: pattern.to_path_buf(),
                detail: format!("bad glob pattern: {error}"),
            });
            return;
        }
    };
    let mut matched = 0;
    for entry in entries {
        match entry {
            Ok(path) if path.is_dir() => {
                matched += 1;
                walk_directory(&path, paths, problems);
            }
            Ok(path) => {
                matched += 1;
                paths.push(path);
            }
            Err(error) => {
                problems.push(InputProblem { path: error.path().to_path_buf(), detail: error.to_string() });
            }
        }
    }
    if matched == 0 {
        problems.push(InputProblem { path: pattern.to_path_buf(), detail: "glob matched no file".into() });
    }
}

/// Size and compression of one file.
pub fn describe(path: &Path) -> std::io::Result<TraceFile> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut magic = [0u8; 2];
    let mut read = 0;
    while read < 2 {
        match file.read(&mut magic[read..])? {
            0 => break,
            count => read += count,
        }
    }
    let compression = if read == 2 && magic == [0x1f, 0x8b] { Compression::Gzip } else { Compression::None };
    // The content decides, except that a file whose name promises gzip and whose bytes are not
    // gzip is one problem, never thousands of "invalid UTF-8" lines of binary junk.
    let named_gzip =
        path.file_name().is_some_and(|name| name.to_string_lossy().to_ascii_lowercase().ends_with(".gz"));
    if named_gzip && size > 0 && compression == Compression::None {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not gzip: the name ends in .gz but the file starts with bytes {:02x} {:02x}, not gzip's 1f 8b",
                magic[0], magic[1]
            ),
        ));
    }
    Ok(TraceFile { path: path.to_path_buf(), size, compression })
}
