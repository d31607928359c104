//! Derived records on every folder of the DFTracer corpus (`../shared/corpus/dftracer/`): the
//! POSIX and STDIO bytes read and written over all derived records (Darshan's excluded paths
//! included) equal the independent counts of `expected.json`. Skipped, with a message, when the
//! corpus is absent.

#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use ioscout_read::{ScanOptions, Scanner, discover};

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dftracer");
    if root.is_dir() {
        Some(root)
    } else {
        ioscout_testkit::skip(&format!("the DFTracer corpus is not at {}", root.display()));
        None
    }
}

#[test]
fn derived_bytes_equal_the_expected_counts_of_every_corpus_folder() {
    let Some(root) = corpus() else { return };
    let scanner = Scanner::new(ScanOptions::default());
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("expected.json").is_file())
        .collect();
    folders.sort();
    assert!(!folders.is_empty(), "no corpus folder with expected.json under {}", root.display());
    let mut failures = Vec::new();
    for folder in &folders {
        let text = std::fs::read_to_string(folder.join("expected.json")).unwrap_or_default();
        let Ok(expected) = serde_json::from_str::<serde_json::Value>(&text) else {
            failures.push(format!("{}: expected.json does not parse", folder.display()));
            continue;
        };
        let (files, problems) = discover(&[folder]);
        // A folder holding the same trace twice (plain and gzip) is counted once by expected.json.
        let files: Vec<_> = match expected["per_file"].as_object() {
            Some(per_file) if per_file.len() < files.len() => files
                .into_iter()
                .filter(|file| {
                    file.path.file_name().is_some_and(|name| per_file.contains_key(&*name.to_string_lossy()))
                })
                .collect(),
            _ => files,
        };
        let (derived, _) = ioscout_evidence::derive(&scanner, &files, &problems, folder);
        let want = (
            expected["posix_stdio_read_bytes"].as_i64().unwrap_or(-1),
            expected["posix_stdio_write_bytes"].as_i64().unwrap_or(-1),
        );
        if derived.all_bytes != want {
            failures.push(format!(
                "{}: derived (read, written) {:?}, expected {want:?}",
                folder.display(),
                derived.all_bytes
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
