//! `ioscout index` and `ioscout query`: indexed answers equal full scans; stale, damaged, newer
//! and misplaced indexes give a clear message and a correct answer, never a wrong one.

use std::path::{Path, PathBuf};

use crate::{ioscout, ioscout_with, root, stderr, stdout, temp_dir};

/// A copy of the sample trace in a fresh directory.
pub(crate) fn sample_copy(name: &str) -> PathBuf {
    let directory = temp_dir(name).join("traces");
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    for entry in std::fs::read_dir(root().join("testdata/sample")).into_iter().flatten().flatten() {
        if entry.path().to_string_lossy().ends_with(".pfw.gz") {
            std::fs::copy(entry.path(), directory.join(entry.file_name()))
                .unwrap_or_else(|error| panic!("{error}"));
        }
    }
    directory
}

/// Overwrites the format version recorded in an index, as another ioscout would have written it.
fn set_format(index: &Path, format: u32) {
    let database = redb::Database::open(index).unwrap_or_else(|error| panic!("{error}"));
    let transaction = database.begin_write().unwrap_or_else(|error| panic!("{error}"));
    {
        let definition: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
        let mut meta = transaction.open_table(definition).unwrap_or_else(|error| panic!("{error}"));
        meta.insert("format", format.to_le_bytes().as_slice()).unwrap_or_else(|error| panic!("{error}"));
    }
    transaction.commit().unwrap_or_else(|error| panic!("{error}"));
    drop(database);
    reseal(index);
}

/// An index edited by hand no longer matches the checksum ioscout wrote beside it: the tests
/// that edit one on purpose (to stand for another ioscout's index) write the checksum again, as
/// that ioscout would have.
fn reseal(index: &Path) {
    let bytes = std::fs::read(index).unwrap_or_default();
    let mut name = index.as_os_str().to_os_string();
    name.push(".sum");
    let line = format!("crc32 {:08x} length {}\n", crc32(&bytes), bytes.len());
    std::fs::write(PathBuf::from(name), line).unwrap_or_else(|error| panic!("{error}"));
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

const PREDICATES: [&str; 5] = [
    r#"host == "node02" and pid == 9110"#,
    r#"name == "write" or dur > 50000"#,
    r#"file ~ "img_1[0-9]_of" and not (name in ("read", "lseek64"))"#,
    "ph == M",
    r#"cat != "POSIX" and ts < 1795000000500000"#,
];

fn query(directory: &Path, predicate: &str, extra: &[&str]) -> (String, String, Option<i32>) {
    let directory = text(directory);
    let mut arguments = vec!["query", directory.as_str(), "--where", predicate];
    arguments.extend_from_slice(extra);
    let output = ioscout(&arguments);
    (stdout(&output), stderr(&output), output.status.code())
}

#[test]
fn indexed_queries_equal_full_scans() {
    let directory = sample_copy("indexed-equal");
    let output = ioscout(&["index", &text(&directory)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("6 files indexed, 0 unchanged, 0 removed"), "{}", stdout(&output));
    assert!(directory.join(".ioscout/index.redb").is_file());
    for predicate in PREDICATES {
        let (indexed, notes, code) = query(&directory, predicate, &[]);
        let (scanned, _, _) = query(&directory, predicate, &["--no-index"]);
        assert_eq!(code, Some(0));
        assert!(!indexed.is_empty(), "{predicate}: no rows");
        assert_eq!(indexed, scanned, "{predicate}");
        assert!(notes.contains("from the index"), "{notes}");
    }
    let (_, notes, _) = query(&directory, PREDICATES[0], &[]);
    assert!(notes.contains("reading 1 of"), "a selective query should read one chunk: {notes}");
    let again = ioscout(&["index", &text(&directory)]);
    assert!(stdout(&again).contains("0 files indexed, 6 unchanged"), "{}", stdout(&again));
    // Nothing re-read is not "no trace file could be read" (it was exit 2 until 2026-12-02).
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

#[test]
fn a_query_without_an_index_scans_and_says_how_to_index() {
    let directory = sample_copy("no-index");
    let (rows, notes, code) = query(&directory, PREDICATES[0], &[]);
    assert_eq!(code, Some(0));
    assert!(!rows.is_empty());
    assert!(notes.contains("no usable index: full scan (`ioscout index PATH`"), "{notes}");
}

#[test]
fn a_changed_file_is_scanned_whole_with_a_message() {
    let directory = sample_copy("stale");
    ioscout(&["index", &text(&directory)]);
    // Append a valid event for pid 9110 to one file: the old index does not know it.
    let file = std::fs::read_dir(&directory)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.to_string_lossy().contains("trace-1-of-2") && path.to_string_lossy().ends_with("fork.pfw.gz")
        })
        .unwrap_or_else(|| panic!("no fork file"));
    let mut bytes = std::fs::read(&file).unwrap_or_default();
    let line = br#"{"id":999,"name":"read","cat":"POSIX","type":3,"pid":9110,"tid":9110,"ts":1795000009999999,"dur":5,"ph":1,"args":{"hhash":"f4516f5562e07e45","ret":1}}
"#;
    let mut encoder = flate2_member(line);
    bytes.append(&mut encoder);
    std::fs::write(&file, bytes).unwrap_or_else(|error| panic!("{error}"));
    let (indexed, notes, _) = query(&directory, "ts == 1795000009999999", &[]);
    let (scanned, _, _) = query(&directory, "ts == 1795000009999999", &["--no-index"]);
    assert_eq!(indexed, scanned);
    assert_eq!(indexed.lines().count(), 1);
    assert!(notes.contains("does not cover 1 of 6 files"), "{notes}");
    // Only appended to: `index` extends the file's record from its old end, and the index then
    // answers for it.
    let refreshed = ioscout(&["index", &text(&directory)]);
    assert!(
        stdout(&refreshed).contains("0 files indexed, 1 extended, 5 unchanged"),
        "{}",
        stdout(&refreshed)
    );
    let (extended, notes, _) = query(&directory, "ts == 1795000009999999", &[]);
    assert_eq!(extended, scanned);
    assert!(!notes.contains("does not cover"), "{notes}");
    // Grown and changed before its old end (the first member's header time): read whole.
    let mut bytes = std::fs::read(&file).unwrap_or_default();
    bytes.extend(flate2_member(line));
    bytes[4] ^= 1;
    std::fs::write(&file, bytes).unwrap_or_else(|error| panic!("{error}"));
    let rebuilt = ioscout(&["index", &text(&directory)]);
    assert!(stdout(&rebuilt).contains("1 file indexed, 5 unchanged"), "{}", stdout(&rebuilt));
}

/// One gzip member holding `data` (stored, uncompressed deflate blocks: no dependency needed).
fn flate2_member(data: &[u8]) -> Vec<u8> {
    let mut member = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    member.push(1);
    let length = data.len() as u16;
    member.extend_from_slice(&length.to_le_bytes());
    member.extend_from_slice(&(!length).to_le_bytes());
    member.extend_from_slice(data);
    member.extend_from_slice(&crc32(data).to_le_bytes());
    member.extend_from_slice(&(data.len() as u32).to_le_bytes());
    member
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn damaged_indexes_are_reported_and_never_misread() {
    for (name, damage) in [("garbage", 0usize), ("truncated", 1)] {
        let directory = sample_copy(&format!("damaged-{name}"));
        ioscout(&["index", &text(&directory)]);
        let index = directory.join(".ioscout/index.redb");
        if damage == 0 {
            std::fs::write(&index, b"this is not an index").unwrap_or_else(|error| panic!("{error}"));
        } else {
            let bytes = std::fs::read(&index).unwrap_or_default();
            std::fs::write(&index, &bytes[..bytes.len() / 3]).unwrap_or_else(|error| panic!("{error}"));
        }
        let (indexed, notes, code) = query(&directory, PREDICATES[1], &[]);
        let (scanned, _, _) = query(&directory, PREDICATES[1], &["--no-index"]);
        assert_eq!(code, Some(0), "{name}: {notes}");
        assert_eq!(indexed, scanned, "{name}");
        assert!(
            notes.contains("is unreadable") && notes.contains("rebuild it with `ioscout index`"),
            "{name}: {notes}"
        );
        let rebuilt = ioscout(&["index", &text(&directory)]);
        assert_eq!(rebuilt.status.code(), Some(0));
        assert!(stderr(&rebuilt).contains("rebuilding it"), "{name}: {}", stderr(&rebuilt));
        let (_, notes, _) = query(&directory, PREDICATES[1], &[]);
        assert!(notes.contains("from the index"), "{name}: {notes}");
    }
}

#[test]
fn an_index_of_a_newer_format_is_refused_not_misread() {
    let directory = sample_copy("newer");
    ioscout(&["index", &text(&directory)]);
    let index = directory.join(".ioscout/index.redb");
    set_format(&index, 99);
    let (indexed, notes, code) = query(&directory, PREDICATES[0], &[]);
    let (scanned, _, _) = query(&directory, PREDICATES[0], &["--no-index"]);
    assert_eq!(code, Some(0));
    assert_eq!(indexed, scanned);
    assert!(notes.contains("has format 99, newer than the"), "{notes}");
    let refused = ioscout(&["index", &text(&directory)]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    let forced = ioscout(&["index", "--force", &text(&directory)]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
}

#[test]
fn an_unwritable_directory_indexes_into_the_cache() {
    let directory = sample_copy("unwritable");
    // `.ioscout` taken by a file: the index cannot go there (this holds even for root, for
    // whom permission bits do not stop writes).
    std::fs::write(directory.join(".ioscout"), b"").unwrap_or_else(|error| panic!("{error}"));
    let cache = temp_dir("unwritable-cache");
    let output = ioscout_with(&["index", &text(&directory)], &[("XDG_CACHE_HOME", &cache)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("is not writable: the index goes to"), "{}", stderr(&output));
    let arguments = ["query", &text(&directory), "--where", PREDICATES[0]];
    let queried = ioscout_with(&arguments, &[("XDG_CACHE_HOME", &cache)]);
    assert!(stderr(&queried).contains("from the index"), "{}", stderr(&queried));
    // An explicit --index-dir works for both commands.
    let elsewhere = temp_dir("index-dir");
    let output = ioscout(&["index", "--index-dir", &text(&elsewhere), &text(&directory)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let queried =
        ioscout(&["query", "--index-dir", &text(&elsewhere), &text(&directory), "--where", PREDICATES[0]]);
    assert!(stderr(&queried).contains("reading 1 of"), "{}", stderr(&queried));
}

#[test]
fn group_by_from_statistics_equals_the_scan() {
    let directory = sample_copy("group-by");
    ioscout(&["index", &text(&directory)]);
    for (predicate, agg) in [
        (None, "count,sum:dur,mean:dur,min:dur,max:dur,sum:size"),
        (Some("cat == \"POSIX\""), "count,sum:dur,sum:size"),
        (Some("host == \"node01\""), "count,max:dur"),
        (Some("name == \"read\" and dur > 20000"), "count,mean:dur,p50:dur,mean:size"),
    ] {
        for keys in ["name,cat", "cat", "name", "pid,ph"] {
            let mut arguments = vec![
                "query".to_string(),
                text(&directory),
                "--group-by".into(),
                keys.into(),
                "--agg".into(),
                agg.into(),
                "--format".into(),
                "jsonl".into(),
            ];
            if let Some(predicate) = predicate {
                arguments.extend(["--where".to_string(), predicate.to_string()]);
            }
            let borrowed: Vec<&str> = arguments.iter().map(String::as_str).collect();
            let indexed = ioscout(&borrowed);
            let mut scanned_arguments = borrowed.clone();
            scanned_arguments.push("--no-index");
            let scanned = ioscout(&scanned_arguments);
            assert_eq!(indexed.status.code(), Some(0), "{}", stderr(&indexed));
            assert_eq!(stdout(&indexed), stdout(&scanned), "{keys} / {agg} / {predicate:?}");
            assert!(!stdout(&indexed).is_empty());
        }
    }
    let output = ioscout(&["query", &text(&directory), "--group-by", "name,cat", "--agg", "count,sum:dur"]);
    assert!(stderr(&output).contains("answered from the index statistics"), "{}", stderr(&output));
    let table = stdout(&output);
    assert!(table.lines().next().unwrap_or_default().starts_with("name"), "{table}");
    assert!(table.lines().any(|line| line.starts_with("read ") && line.contains(" POSIX ")), "{table}");
    let csv = ioscout(&["query", &text(&directory), "--group-by", "cat", "--format", "csv"]);
    assert_eq!(stdout(&csv).lines().next(), Some("cat,count"));
    let bad = ioscout(&["query", &text(&directory), "--group-by", "colour"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("unknown --group-by key"), "{}", stderr(&bad));
}

#[test]
fn an_index_of_an_older_format_is_rebuilt_with_a_message() {
    let directory = sample_copy("older");
    ioscout(&["index", &text(&directory)]);
    let index = directory.join(".ioscout/index.redb");
    set_format(&index, 1);
    let (rows, notes, _) = query(&directory, PREDICATES[0], &[]);
    assert!(!rows.is_empty());
    assert!(notes.contains("no usable index"), "{notes}");
    let rebuilt = ioscout(&["index", &text(&directory)]);
    assert!(stderr(&rebuilt).contains("has the older format 1: rebuilding it"), "{}", stderr(&rebuilt));
    assert!(stdout(&rebuilt).contains("6 files indexed"), "{}", stdout(&rebuilt));
}

#[test]
fn indexing_a_subset_keeps_the_rest_and_drops_vanished_files() {
    let directory = sample_copy("subset");
    ioscout(&["index", &text(&directory)]);
    let subset = format!("{}/trace-0-of-2-*.pfw.gz", text(&directory));
    let output = ioscout(&["index", "--force", &subset]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("3 files indexed, 0 unchanged, 0 removed"), "{}", stdout(&output));
    let (_, notes, _) = query(&directory, PREDICATES[0], &[]);
    assert!(notes.contains("(6 of 6 files from the index)"), "{notes}");
    // A vanished file's record goes at the next run.
    let victim = std::fs::read_dir(&directory)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().contains("trace-1-of-2"))
        .unwrap_or_else(|| panic!("no rank-1 file"));
    std::fs::remove_file(&victim).unwrap_or_else(|error| panic!("{error}"));
    let output = ioscout(&["index", &text(&directory)]);
    assert!(stdout(&output).contains("0 files indexed, 5 unchanged, 1 removed"), "{}", stdout(&output));
}

#[test]
fn a_single_gzip_member_is_cut_at_checkpoints_and_a_lost_window_reads_it_whole() {
    let directory = temp_dir("checkpoints").join("traces");
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let source =
        root().join("testdata/validation/dlio_read_threads_1/trace-0-of-1-c77f26b1544f2d2a-app.pfw.gz");
    std::fs::copy(&source, directory.join("trace-0-of-1-c77f26b1544f2d2a-app.pfw.gz"))
        .unwrap_or_else(|error| panic!("{error}"));
    let output = ioscout(&["index", &text(&directory), "--chunk-kib", "4", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&output)).unwrap_or_else(|error| panic!("{error}"));
    assert!(
        report["directories"][0]["chunks"].as_u64().unwrap_or(0) >= 2,
        "one member cut into chunks: {report}"
    );
    assert_eq!(report["scan"]["complete"], true, "{report}");
    let predicates = [r#"name == "read""#, "dur > 1000", r#"cat == "ai_framework""#];
    for predicate in predicates {
        let (indexed, notes, _) = query(&directory, predicate, &[]);
        let (scanned, _, _) = query(&directory, predicate, &["--no-index"]);
        assert_eq!(indexed, scanned, "{predicate}: {notes}");
    }
    // The window of chunk 1 vanishes from the index: that file is read whole, with a note.
    let index = directory.join(".ioscout/index.redb");
    {
        let database = redb::Database::open(&index).unwrap_or_else(|error| panic!("{error}"));
        let transaction = database.begin_write().unwrap_or_else(|error| panic!("{error}"));
        {
            let definition: redb::TableDefinition<(&str, u32), &[u8]> = redb::TableDefinition::new("windows");
            let mut windows = transaction.open_table(definition).unwrap_or_else(|error| panic!("{error}"));
            let removed = windows
                .remove(("trace-0-of-1-c77f26b1544f2d2a-app.pfw.gz", 1))
                .unwrap_or_else(|error| panic!("{error}"));
            assert!(removed.is_some(), "chunk 1 had a window");
        }
        transaction.commit().unwrap_or_else(|error| panic!("{error}"));
    }
    reseal(&index);
    let (indexed, notes, code) = query(&directory, predicates[1], &[]);
    let (scanned, _, _) = query(&directory, predicates[1], &["--no-index"]);
    assert_eq!(code, Some(0), "{notes}");
    assert_eq!(indexed, scanned);
    assert!(notes.contains("no window for chunk 1") && notes.contains("whole"), "{notes}");
}

/// The fuzz reproducers of `open_index` (one byte of a real index changed, which made redb
/// panic inside its B-tree code and `query` exit 101) and the same byte flips of a fresh index:
/// the damage is reported, the query answers from a full scan, and `index` rebuilds.
#[test]
fn an_index_with_one_byte_changed_is_reported_never_a_panic() {
    let reproducers = root().join("testdata/fuzz-repro/open_index");
    let mut damaged: Vec<(String, Option<Vec<u8>>)> = std::fs::read_dir(&reproducers)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), std::fs::read(entry.path()).ok()))
        .collect();
    assert!(damaged.len() >= 4, "reproducers missing from {}", reproducers.display());
    damaged.push(("flip-at-0x3000-of-a-fresh-index".into(), None));
    damaged.push(("checksum-missing".into(), Some(Vec::new())));
    for (name, bytes) in damaged {
        let directory = sample_copy(&format!("flipped-{name}"));
        let built = ioscout(&["index", &text(&directory)]);
        assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
        let index = directory.join(".ioscout/index.redb");
        if bytes.as_ref().is_some_and(Vec::is_empty) {
            // No checksum beside the index: never opened (arbitrary bytes can make the store
            // allocate gigabytes), rebuilt.
            let mut name = index.as_os_str().to_os_string();
            name.push(".sum");
            std::fs::remove_file(PathBuf::from(name)).unwrap_or_else(|error| panic!("{error}"));
        } else if let Some(bytes) = bytes.as_ref().filter(|_| name.starts_with("oom-")) {
            // One that made redb allocate 4 GiB while opening: without a matching checksum it
            // is never opened.
            std::fs::write(&index, bytes).unwrap_or_else(|error| panic!("{error}"));
        } else if let Some(bytes) = bytes {
            // A reproducer with a matching checksum: redb opens it, and its panics are contained.
            std::fs::write(&index, bytes).unwrap_or_else(|error| panic!("{error}"));
            reseal(&index);
        } else {
            // A flip in a checksummed index is caught before redb reads it.
            let mut bytes = std::fs::read(&index).unwrap_or_default();
            bytes[0x3000] ^= 0x01;
            std::fs::write(&index, bytes).unwrap_or_else(|error| panic!("{error}"));
        }
        let (indexed, notes, code) = query(&directory, PREDICATES[1], &[]);
        let (scanned, _, _) = query(&directory, PREDICATES[1], &["--no-index"]);
        assert_eq!(code, Some(0), "{name}: {notes}");
        assert!(!notes.contains("panicked"), "{name}: {notes}");
        assert_eq!(indexed, scanned, "{name}");
        assert!(notes.contains("is unreadable"), "{name}: {notes}");
        let rebuilt = ioscout(&["index", &text(&directory)]);
        assert_eq!(rebuilt.status.code(), Some(0), "{name}: {}", stderr(&rebuilt));
        assert!(stderr(&rebuilt).contains("rebuilding it"), "{name}: {}", stderr(&rebuilt));
        let (_, notes, _) = query(&directory, PREDICATES[1], &[]);
        assert!(notes.contains("from the index"), "{name}: {notes}");
    }
}

/// Three `ioscout index` of one directory at once: the later ones wait for the first (no
/// "Database already open ... unreadable"), every one succeeds, and the index answers queries.
#[test]
fn concurrent_index_builds_wait_for_each_other() {
    let directory = sample_copy("concurrent-builds");
    let path = text(&directory);
    let children: Vec<std::process::Child> = (0..3)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_ioscout"))
                .args(["index", "--force", &path])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap_or_else(|error| panic!("{error}"))
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap_or_else(|error| panic!("{error}"));
        let notes = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "{notes}");
        assert!(!notes.contains("already open") && !notes.contains("unreadable"), "{notes}");
    }
    let (indexed, notes, _) = query(&directory, PREDICATES[1], &[]);
    let (scanned, _, _) = query(&directory, PREDICATES[1], &["--no-index"]);
    assert_eq!(indexed, scanned);
    assert!(notes.contains("from the index"), "{notes}");
}

/// Percentiles lie inside each group's [min, max], p0 is the minimum and p100 the maximum (the
/// sketch gave p100 above the maximum and p99 below the minimum), and the output says they are
/// exact.
#[test]
fn percentiles_are_exact_and_inside_min_and_max() {
    let sample = text(&root().join("testdata/sample"));
    let output = ioscout(&[
        "query",
        &sample,
        "--no-index",
        "--group-by",
        "name",
        "--agg",
        "count,min:dur,max:dur,p0:dur,p50:dur,p99:dur,p100:dur",
        "--format",
        "jsonl",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("percentiles are exact"), "{}", stderr(&output));
    let mut groups = 0;
    for line in stdout(&output).lines() {
        let row: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}"));
        if row["min:dur"].is_null() {
            assert!(row["p50:dur"].is_null(), "a percentile without durations: {line}");
            continue;
        }
        let number = |key: &str| row[key].as_f64().unwrap_or_else(|| panic!("{key} in {line}"));
        let (min, max) = (number("min:dur"), number("max:dur"));
        assert!((number("p0:dur") - min).abs() < 1e-9, "p0 is not the minimum: {line}");
        assert!((number("p100:dur") - max).abs() < 1e-9, "p100 is not the maximum: {line}");
        for key in ["p50:dur", "p99:dur"] {
            assert!(number(key) >= min && number(key) <= max, "{key} outside [min, max]: {line}");
        }
        groups += 1;
    }
    assert!(groups > 3, "{}", stdout(&output));
}
