//! Chunks cut at checkpoints inside one gzip member: they tile the file's lines exactly, each
//! decodes on its own, problems keep their true line numbers and offsets, and a damaged window
//! is reported instead of giving wrong rows.

use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ioscout_index::TraceIndex;
use ioscout_index::build::{BuildOptions, build, file_key};
use ioscout_read::{Chunk, Decode, Fold, NoFold, ScanOptions, Scanner, TraceFile, discover};

/// Line number (1-based) of the one invalid line of the generated trace.
const BAD_LINE: usize = 15_001;

/// A single-member gzip trace of 20,000 varied events with one invalid line, in a fresh
/// directory.
fn single_member_trace(tag: &str) -> (PathBuf, Vec<TraceFile>) {
    single_member_trace_ending(tag, "")
}

/// The same, followed by `ending` (an unterminated last line when it has no newline).
fn single_member_trace_ending(tag: &str, ending: &str) -> (PathBuf, Vec<TraceFile>) {
    let directory = std::env::temp_dir().join(format!("ioscout-checkpoints-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let mut text = String::from("[\n");
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for id in 1..=20_000u64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Line 1 is the opening bracket; event `id` is on line `id + 1`.
        if usize::try_from(id + 1).ok() == Some(BAD_LINE) {
            text.push_str("{\"id\":oops this is not json\n");
            continue;
        }
        let name = ["read", "write", "open64", "close", "lseek64"][(state % 5) as usize];
        let _ = writeln!(
            text,
            "{{\"id\":{id},\"name\":\"{name}\",\"cat\":\"POSIX\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"ph\":\"X\",\"args\":{{\"hhash\":\"h{}\",\"size_sum\":{}}}}}",
            1000 + state % 7,
            2000 + state % 11,
            1_700_000_000_000_000 + id * 997 + state % 991,
            state % 100_000,
            state % 3,
            state % 1_048_576,
        );
    }
    text.push_str(ending);
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).unwrap_or_else(|error| panic!("{error}"));
    let bytes = encoder.finish().unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(directory.join("trace-0-of-1-single.pfw.gz"), bytes)
        .unwrap_or_else(|error| panic!("{error}"));
    let files = discover(std::slice::from_ref(&directory)).0;
    (directory, files)
}

/// Collects raw lines.
#[derive(Default)]
struct Lines(Vec<Vec<u8>>);

impl Fold for Lines {
    fn event(&mut self, _event: &ioscout_model::Event<'_>) {}

    fn decode(&self) -> Decode {
        Decode::Skim
    }

    fn skim(&mut self, line: &[u8]) {
        self.0.push(line.to_vec());
    }
}

fn chunks(directory: &Path, files: &[TraceFile]) -> Vec<Chunk> {
    let options = BuildOptions { threads: 2, chunk_bytes: 16 << 10, ..BuildOptions::default() };
    let report = build(directory, files, &options).unwrap_or_else(|error| panic!("{error}"));
    let index = TraceIndex::read(&report.index_path)
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|| panic!("no index"));
    let key = file_key(directory, &files[0].path);
    let record = &index.files[&key];
    let numbers: Vec<usize> = (0..record.chunks.len()).collect();
    record.scan_chunks(0, &index.path, &key, &numbers).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn checkpoint_chunks_tile_the_lines_of_one_member_exactly() {
    let (directory, files) = single_member_trace("tile");
    let chunks = chunks(&directory, &files);
    assert!(chunks.len() >= 5, "one member of {} bytes gives {} chunks", files[0].size, chunks.len());
    assert!(chunks.iter().all(|chunk| chunk.resume.is_some()), "every chunk resumes at a checkpoint");
    assert!(
        chunks.iter().filter_map(|chunk| chunk.resume.as_ref()).any(|resume| resume.bit_offset % 8 != 0),
        "some checkpoint starts mid-byte (the realigned input is exercised)"
    );
    let scanner = Scanner::new(ScanOptions { threads: 2, ..ScanOptions::default() });
    let mut whole = Vec::new();
    scanner.scan(
        &files,
        &[],
        |_| Lines::default(),
        |_, fold, _| {
            whole.extend(fold.0);
            ControlFlow::Continue(())
        },
    );
    let mut pieces = Vec::new();
    let mut line_base = 0;
    for chunk in &chunks {
        assert_eq!(chunk.line_base, line_base, "lines before chunk at offset {}", chunk.offset_base);
        let mut lines = Vec::new();
        scanner.scan_chunks(
            &files,
            &[],
            std::slice::from_ref(chunk),
            |_| Lines::default(),
            |_, fold| {
                lines.extend(fold.0);
                ControlFlow::Continue(())
            },
        );
        line_base += lines.len() as u64;
        pieces.extend(lines);
    }
    assert_eq!(pieces.len(), whole.len());
    assert!(pieces == whole, "the chunks' lines, in order, are the file's lines");
    // All chunks at once, in parallel: the same counts and the same located problem.
    let full = scanner.scan(&files, &[], |_| NoFold, |_, _, _| ControlFlow::Continue(()));
    let chunked = scanner.scan_chunks(&files, &[], &chunks, |_| NoFold, |_, _| ControlFlow::Continue(()));
    let (full, chunked) = (&full.files[0], &chunked.files[0]);
    assert_eq!((chunked.counts, chunked.lines), (full.counts, full.lines));
    assert_eq!(chunked.uncompressed_bytes, full.uncompressed_bytes);
    assert_eq!(full.problems.len(), 1);
    assert_eq!(full.problems[0].line, Some(BAD_LINE as u64));
    assert_eq!(
        chunked.problems.iter().map(|problem| (problem.line, problem.offset)).collect::<Vec<_>>(),
        full.problems.iter().map(|problem| (problem.line, problem.offset)).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_long_unterminated_last_line_keeps_the_checkpoints_before_it() {
    // About 1 MB of hard-to-compress text without a newline: checkpoints fall inside it.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let ending: String = (0..1_000_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'a' + (state % 26) as u8)
        })
        .collect();
    let (directory, files) = single_member_trace_ending("unterminated", &ending);
    let chunks = chunks(&directory, &files);
    assert!(chunks.len() >= 5, "{} chunks", chunks.len());
    let scanner = Scanner::new(ScanOptions { threads: 2, ..ScanOptions::default() });
    let full = scanner.scan(&files, &[], |_| NoFold, |_, _, _| ControlFlow::Continue(()));
    let chunked = scanner.scan_chunks(&files, &[], &chunks, |_| NoFold, |_, _| ControlFlow::Continue(()));
    let (full, chunked) = (&full.files[0], &chunked.files[0]);
    assert_eq!(
        (chunked.counts, chunked.lines, chunked.uncompressed_bytes),
        (full.counts, full.lines, full.uncompressed_bytes)
    );
    assert_eq!(
        chunked.problems.iter().map(|problem| (problem.line, problem.offset)).collect::<Vec<_>>(),
        full.problems.iter().map(|problem| (problem.line, problem.offset)).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_damaged_window_is_reported_never_silently_decoded() {
    let (directory, files) = single_member_trace("damaged");
    let mut chunks = chunks(&directory, &files);
    let Some(chunk) =
        chunks.iter_mut().find(|chunk| chunk.resume.as_ref().is_some_and(|resume| !resume.window.is_empty()))
    else {
        panic!("no chunk with a window")
    };
    let scanner = Scanner::new(ScanOptions { threads: 1, ..ScanOptions::default() });
    let good = scanner.scan_chunks(
        &files,
        &[],
        std::slice::from_ref(chunk),
        |_| NoFold,
        |_, _| ControlFlow::Continue(()),
    );
    if let Some(resume) = chunk.resume.as_mut() {
        resume.window = vec![0xff; 12];
    }
    let bad = scanner.scan_chunks(
        &files,
        &[],
        std::slice::from_ref(chunk),
        |_| NoFold,
        |_, _| ControlFlow::Continue(()),
    );
    assert_eq!(good.files[0].problem_count, 0);
    assert!(bad.files[0].problem_count > 0, "a window that does not inflate is a reported problem");
    assert_eq!(bad.files[0].counts.events(), 0, "and no event is made up from it");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn windows_survive_an_incremental_update_and_a_forced_rebuild() {
    let (directory, files) = single_member_trace("incremental");
    let first = chunks(&directory, &files);
    // Another file appears: the first file's record and windows are kept.
    std::fs::copy(testdata_sample(), directory.join("trace-1-of-1-other.pfw.gz"))
        .unwrap_or_else(|error| panic!("{error}"));
    let all = discover(std::slice::from_ref(&directory)).0;
    let options = BuildOptions { threads: 2, chunk_bytes: 16 << 10, ..BuildOptions::default() };
    let report = build(&directory, &all, &options).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!((report.indexed, report.unchanged), (1, 1));
    // A forced rebuild of only the new file carries the first file's windows into the new index.
    let other: Vec<TraceFile> = all.iter().filter(|file| file.path != files[0].path).cloned().collect();
    let forced = BuildOptions { force: true, ..options };
    build(&directory, &other, &forced).unwrap_or_else(|error| panic!("{error}"));
    let index = TraceIndex::read(&report.index_path)
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|| panic!("no index"));
    let key = file_key(&directory, &files[0].path);
    let record = &index.files[&key];
    let numbers: Vec<usize> = (0..record.chunks.len()).collect();
    let again = record.scan_chunks(0, &index.path, &key, &numbers).unwrap_or_else(|error| panic!("{error}"));
    assert!(again == first, "the same chunks and windows after both updates");
    let _ = std::fs::remove_dir_all(&directory);
}

fn testdata_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/sample/trace-0-of-2-bfa30dfc0f65c01d-app.pfw.gz")
}
