//! `ioscout export` and `ioscout report`.

use crate::{ioscout, json};

fn scratch(name: &str) -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!("ioscout-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    let _ = std::fs::create_dir_all(&directory);
    directory
}

#[test]
fn chrome_json_holds_every_complete_event_with_names_resolved() {
    let directory = scratch("chrome");
    let path = directory.join("trace.json");
    let output = ioscout(&[
        "export",
        "testdata/sample",
        "--format",
        "chrome-json",
        "-o",
        &path.to_string_lossy(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let value: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("not JSON: {error}"));
    let events = value["traceEvents"].as_array().cloned().unwrap_or_default();
    let counted = json(&["count", "--json", "testdata/sample"], 0);
    assert_eq!(Some(events.len() as u64), counted["total"]["complete"].as_u64());
    assert!(events.iter().all(|event| event["ph"] == "X" && event["ts"].is_i64() && event["pid"].is_i64()));
    assert!(events.iter().any(|event| event["args"]["host"] == "node01"));
    assert!(
        events.iter().any(|event| event["args"]["file"].as_str().is_some_and(|file| file.contains("/data/")))
    );
    // A filter keeps only what it matches; an empty result is still valid JSON.
    let filtered = directory.join("none.json");
    let output = ioscout(&[
        "export",
        "testdata/sample",
        "--format",
        "chrome-json",
        "--where",
        "pid == 1",
        "-o",
        &filtered.to_string_lossy(),
        "--quiet",
    ]);
    assert!(output.status.success());
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&filtered).unwrap_or_default()).unwrap_or_default();
    assert_eq!(value["traceEvents"].as_array().map(Vec::len), Some(0));
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn parquet_export_and_the_html_report_are_written() {
    let directory = scratch("export");
    let parquet = directory.join("events.parquet");
    let output = ioscout(&[
        "export",
        "testdata/sample",
        "--format",
        "parquet",
        "-o",
        &parquet.to_string_lossy(),
        "--quiet",
    ]);
    assert!(output.status.success());
    let bytes = std::fs::read(&parquet).unwrap_or_default();
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
    let html = directory.join("report.html");
    let output = ioscout(&["report", "testdata/sample", "-o", &html.to_string_lossy()]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("8 charts"));
    let page = std::fs::read_to_string(&html).unwrap_or_default();
    assert_eq!(page.matches("<figure class=\"chart\"").count(), 8);
    let _ = std::fs::remove_dir_all(&directory);
}

/// The decompressed bytes of every trace file under `directory`, by relative name.
fn contents(directory: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut found = std::collections::BTreeMap::new();
    let (files, _) = ioscout_read::discover(&[directory]);
    for file in files {
        let mut bytes = Vec::new();
        let raw = std::fs::read(&file.path).unwrap_or_default();
        if file.path.extension().is_some_and(|extension| extension == "gz") {
            let _ = std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&raw[..]), &mut bytes);
        } else {
            bytes = raw;
        }
        let name =
            file.path.strip_prefix(directory).map(|path| path.display().to_string()).unwrap_or_default();
        found.insert(name, bytes);
    }
    found
}

fn round_trip(source: &std::path::Path, name: &str) {
    let directory = scratch(name);
    let organized = directory.join("organized");
    let rebuilt = directory.join("rebuilt");
    let output =
        ioscout(&["organize", &source.to_string_lossy(), "-o", &organized.to_string_lossy(), "--quiet"]);
    assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
    let output = ioscout(&["reconstruct", &organized.to_string_lossy(), "-o", &rebuilt.to_string_lossy()]);
    assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
    let original = contents(source);
    assert!(!original.is_empty());
    assert_eq!(original, contents(&rebuilt), "{name}");
    // The organized directory is a trace: the same complete events, and a query on one group.
    let before = json(&["count", "--json", &source.to_string_lossy()], 0);
    let after = json(&["count", "--json", &organized.to_string_lossy()], 0);
    assert_eq!(before["total"]["complete"], after["total"]["complete"], "{name}");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn organize_then_reconstruct_gives_the_bundled_traces_back() {
    round_trip(&crate::root().join("testdata/sample"), "organize-sample");
    round_trip(&crate::root().join("testdata/generations"), "organize-generations");
}

#[test]
fn organize_then_reconstruct_gives_every_corpus_folder_back() {
    let Some(corpus) = crate::corpus() else { return };
    let mut folders: Vec<std::path::PathBuf> = std::fs::read_dir(&corpus)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.is_dir())
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    for folder in folders {
        let name = format!(
            "organize-{}",
            folder.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
        );
        round_trip(&folder, &name);
    }
}

/// `organize` on a damaged trace failed (exit 2) where every other command reads it, and left
/// half-written output so a rerun said "not empty". It organizes what the reader reads (bad
/// lines to `_rest`, a truncated member up to the damage, listed as a problem), the events the
/// reader counts are all there, and a failed run leaves nothing behind.
#[test]
fn organize_tolerates_damage_and_never_leaves_half_written_output() {
    let directory = scratch("organize-damaged");
    let source = directory.join("source");
    std::fs::create_dir_all(&source).unwrap_or_else(|error| panic!("{error}"));
    for name in ["truncated.pfw.gz", "garbage-line.pfw", "invalid-utf8.pfw"] {
        std::fs::copy(crate::root().join("testdata/bad").join(name), source.join(name))
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let organized = directory.join("organized");
    let output = ioscout(&["organize", &source.to_string_lossy(), "-o", &organized.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let notes = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(notes.contains("truncated.pfw.gz") && notes.contains("organized up to there"), "{notes}");
    let provenance: serde_json::Value =
        serde_json::from_slice(&std::fs::read(organized.join("provenance.json")).unwrap_or_default())
            .unwrap_or_else(|error| panic!("{error}"));
    assert!(provenance["problems"].as_array().is_some_and(|problems| !problems.is_empty()), "{provenance}");
    let before = json(&["count", "--json", &source.to_string_lossy()], 0);
    let after = json(&["count", "--json", &organized.to_string_lossy()], 0);
    assert_eq!(before["total"]["complete"], after["total"]["complete"]);
    assert_eq!(before["total"]["metadata"], after["total"]["metadata"]);
    // A run that fails after the group files are open (two inputs that would both be named
    // garbage-line.pfw): nothing is left in or beside the output, and a rerun works.
    let failed = directory.join("failed");
    let twin = directory.join("twin");
    std::fs::create_dir_all(&twin).unwrap_or_else(|error| panic!("{error}"));
    std::fs::copy(source.join("garbage-line.pfw"), twin.join("garbage-line.pfw"))
        .unwrap_or_else(|error| panic!("{error}"));
    let first = source.join("garbage-line.pfw").to_string_lossy().into_owned();
    let second = twin.join("garbage-line.pfw").to_string_lossy().into_owned();
    let output = ioscout(&["organize", &first, &second, "-o", &failed.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("would both be"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!failed.exists(), "half-written output left at {}", failed.display());
    let leftovers: Vec<String> = std::fs::read_dir(&directory)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".partial-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let rerun = ioscout(&["organize", &source.to_string_lossy(), "-o", &failed.to_string_lossy()]);
    assert_eq!(
        rerun.status.code(),
        Some(0),
        "a rerun after a failure: {}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    let _ = std::fs::remove_dir_all(&directory);
}
