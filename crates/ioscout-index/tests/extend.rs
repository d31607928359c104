//! A file that grows after it was indexed is extended from its indexed end: only the appended
//! bytes are read, the record then says what a fresh build of the grown file says, its chunks
//! still tile the file and decode on their own (the windows of checkpointed chunks kept), and a
//! file caught mid-write, or changed before its end, is read whole again.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ioscout_index::build::{BuildOptions, BuildReport, build, file_key};
use ioscout_index::{FileIndex, TraceIndex};
use ioscout_read::{NoFold, ScanOptions, Scanner, TraceFile, discover};

/// `count` events from event `first` (varied names, pids and files; the first lines name the
/// files), one per line.
fn events(first: u64, count: u64) -> String {
    let mut text = String::new();
    if first == 0 {
        for file in 0..3 {
            let _ = writeln!(
                text,
                "{{\"id\":0,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{{\"name\":\"/data/f{file}\",\"value\":\"t{file}\"}}}}"
            );
        }
    }
    let mut state: u64 = 0x2545_f491_4f6c_dd1d ^ first;
    for id in first..first + count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let name = ["read", "write", "open64", "close", "lseek64"][(state % 5) as usize];
        let _ = writeln!(
            text,
            "{{\"id\":{id},\"name\":\"{name}\",\"cat\":\"POSIX\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"ph\":\"X\",\"args\":{{\"fhash\":\"t{}\",\"size_sum\":{}}}}}",
            1000 + state % 7,
            2000 + state % 11,
            1_700_000_000_000_000 + id * 997,
            state % 100_000,
            state % 3,
            state % 1_048_576,
        );
    }
    text
}

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).unwrap_or_else(|error| panic!("{error}"));
    encoder.finish().unwrap_or_else(|error| panic!("{error}"))
}

fn append(path: &Path, bytes: &[u8]) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    file.write_all(bytes).unwrap_or_else(|error| panic!("{error}"));
}

fn directory(tag: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("ioscout-extend-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    directory
}

fn build_with(directory: &Path, options: &BuildOptions) -> (BuildReport, Vec<TraceFile>) {
    let files = discover(&[directory.to_path_buf()]).0;
    (build(directory, &files, options).unwrap_or_else(|error| panic!("{error}")), files)
}

fn records(report: &BuildReport) -> BTreeMap<String, FileIndex> {
    TraceIndex::read(&report.index_path)
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|| panic!("no index at {}", report.index_path.display()))
        .files
}

/// What a record says of its file, its chunks aside (a fresh build cuts them differently).
fn summary(record: &FileIndex) -> String {
    let mut rollup = record.rollup();
    rollup.files_unresolved = 0;
    format!(
        "{:?} gzip {} members {} lines {} bytes {} problems {} invalid {} metric {:?} clean {} {rollup:?}",
        record.fingerprint,
        record.gzip,
        record.members,
        record.lines,
        record.uncompressed_bytes,
        record.problem_count,
        record.invalid,
        record.time_metric,
        record.clean_end
    )
}

/// Checks that the chunks of `key` tile its file and decode, through the index, to its lines.
fn assert_chunks_decode(report: &BuildReport, files: &[TraceFile], key: &str, directory: &Path) {
    let records = records(report);
    let record = &records[key];
    let position = files
        .iter()
        .position(|file| file_key(directory, &file.path) == key)
        .unwrap_or_else(|| panic!("{key} not found"));
    let mut end = 0;
    for chunk in &record.chunks {
        assert_eq!(chunk.start, end, "{key}: the chunks tile the file");
        end = chunk.end;
    }
    assert_eq!(end, record.fingerprint.size, "{key}: the last chunk ends at the file's end");
    let numbers: Vec<usize> = (0..record.chunks.len()).collect();
    let chunks = record
        .scan_chunks(0, &report.index_path, key, &numbers)
        .unwrap_or_else(|error| panic!("{key}: {error}"));
    let scanned = Scanner::new(ScanOptions::default()).scan_chunks(
        std::slice::from_ref(&files[position]),
        &[],
        &chunks,
        |_| NoFold,
        |_, _| ControlFlow::Continue(()),
    );
    assert_eq!(scanned.files[0].lines, record.lines, "{key}: lines decoded through the index");
    assert_eq!(scanned.problem_count(), record.problem_count, "{key}");
}

#[test]
fn a_grown_file_is_extended_from_its_indexed_end_and_says_what_a_fresh_build_says() {
    let directory = directory("grown");
    let members = directory.join("trace-0.pfw.gz");
    let lines = directory.join("trace-1.pfw");
    append(&members, &gzip(&events(0, 300)));
    append(&members, &gzip(&events(300, 300)));
    append(&lines, events(0, 500).as_bytes());
    let options = BuildOptions::default();
    let (first, _) = build_with(&directory, &options);
    assert_eq!((first.indexed, first.extended), (2, 0));
    let before = records(&first);
    append(&members, &gzip(&events(600, 200)));
    append(&lines, events(500, 100).as_bytes());
    let (grown, files) = build_with(&directory, &options);
    assert_eq!((grown.indexed, grown.extended, grown.unchanged), (0, 2, 0), "{:?}", grown.messages);
    // Only the appended bytes were read.
    let read: u64 = grown.scan.files.iter().map(|file| file.uncompressed_bytes).sum();
    assert_eq!(read, (events(600, 200).len() + events(500, 100).len()) as u64);
    let extended = records(&grown);
    for key in ["trace-0.pfw.gz", "trace-1.pfw"] {
        assert_eq!(extended[key].chunks.len(), before[key].chunks.len() + 1, "{key}: one chunk added");
        assert_eq!(extended[key].chunks[..before[key].chunks.len()], before[key].chunks[..], "{key}");
        assert_chunks_decode(&grown, &files, key, &directory);
    }
    assert_eq!(extended["trace-0.pfw.gz"].members, 3);
    assert_eq!(extended["trace-1.pfw"].lines, 603, "three FH lines and 600 events");
    // A fresh build of the same files says the same of them.
    let (fresh, _) = build_with(&directory, &BuildOptions { force: true, ..BuildOptions::default() });
    assert_eq!(fresh.indexed, 2);
    let fresh = records(&fresh);
    for key in ["trace-0.pfw.gz", "trace-1.pfw"] {
        assert_eq!(summary(&extended[key]), summary(&fresh[key]), "{key}");
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_file_caught_mid_write_is_extended_then_read_whole_once_finished() {
    let directory = directory("cut");
    let members = directory.join("trace-0.pfw.gz");
    let lines = directory.join("trace-1.pfw");
    append(&members, &gzip(&events(0, 300)));
    append(&lines, events(0, 300).as_bytes());
    let options = BuildOptions::default();
    build_with(&directory, &options);
    // Half a member and half a line: extended, and the records say they did not end cleanly.
    let member = gzip(&events(300, 300));
    let line = events(300, 1);
    append(&members, &member[..member.len() / 2]);
    append(&lines, &line.as_bytes()[..line.len() / 2]);
    let (cut, files) = build_with(&directory, &options);
    assert_eq!((cut.indexed, cut.extended), (0, 2));
    let records_cut = records(&cut);
    for key in ["trace-0.pfw.gz", "trace-1.pfw"] {
        assert!(!records_cut[key].clean_end, "{key}");
        assert!(records_cut[key].problem_count > 0, "{key}: the cut is a problem of the record");
        assert_chunks_decode(&cut, &files, key, &directory);
    }
    // Finished: read whole again (the cut end is no place to go on from), clean.
    append(&members, &member[member.len() / 2..]);
    append(&lines, &line.as_bytes()[line.len() / 2..]);
    let (finished, files) = build_with(&directory, &options);
    assert_eq!((finished.indexed, finished.extended), (2, 0));
    let records_finished = records(&finished);
    for key in ["trace-0.pfw.gz", "trace-1.pfw"] {
        assert!(records_finished[key].clean_end, "{key}");
        assert_eq!(records_finished[key].problem_count, 0, "{key}");
        assert_chunks_decode(&finished, &files, key, &directory);
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_file_changed_before_its_end_is_read_whole() {
    let directory = directory("changed");
    let members = directory.join("trace-0.pfw.gz");
    append(&members, &gzip(&events(0, 300)));
    let options = BuildOptions::default();
    build_with(&directory, &options);
    // Replaced by a longer file whose first bytes differ.
    std::fs::write(&members, gzip(&events(1, 400))).unwrap_or_else(|error| panic!("{error}"));
    let (changed, _) = build_with(&directory, &options);
    assert_eq!((changed.indexed, changed.extended), (1, 0));
    assert_eq!(records(&changed)["trace-0.pfw.gz"].lines, 400);
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_checkpointed_file_keeps_its_windows_when_extended() {
    let directory = directory("windows");
    let members = directory.join("trace-0.pfw.gz");
    append(&members, &gzip(&events(0, 20_000)));
    let options = BuildOptions { chunk_bytes: 64 << 10, ..BuildOptions::default() };
    let (first, _) = build_with(&directory, &options);
    let windows = records(&first)["trace-0.pfw.gz"].window_numbers().len();
    assert!(windows > 1, "the single member is cut at checkpoints ({windows} windows)");
    append(&members, &gzip(&events(20_000, 500)));
    let (grown, files) = build_with(&directory, &options);
    assert_eq!((grown.indexed, grown.extended), (0, 1));
    let record = &records(&grown)["trace-0.pfw.gz"];
    assert_eq!(record.window_numbers().len(), windows);
    assert_eq!(record.lines, 20_503, "three FH lines and 20,500 events");
    assert_chunks_decode(&grown, &files, "trace-0.pfw.gz", &directory);
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn an_empty_file_indexed_then_written_is_read_whole_without_its_empty_file_problem() {
    let directory = directory("empty");
    let lines = directory.join("trace-0.pfw");
    std::fs::write(&lines, b"").unwrap_or_else(|error| panic!("{error}"));
    let options = BuildOptions::default();
    let (empty, _) = build_with(&directory, &options);
    assert_eq!(records(&empty)["trace-0.pfw"].problem_count, 1, "an empty file is a problem");
    append(&lines, events(0, 10).as_bytes());
    let (written, _) = build_with(&directory, &options);
    assert_eq!((written.indexed, written.extended), (1, 0));
    let record = &records(&written)["trace-0.pfw"];
    assert_eq!((record.problem_count, record.lines), (0, 13));
    let _ = std::fs::remove_dir_all(&directory);
}
