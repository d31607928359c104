//! Property tests of the parallel scan: whatever the unit size, thread count, gzip member layout
//! (members cut mid-line, fake member headers inside a member's extra field) and line length
//! limit, the scan must count, order and locate exactly what a sequential line-by-line decode of
//! the same text finds.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;

use ioscout_model::{Event, PhaseCounts};
use ioscout_read::event::{Line, decode_line};
use ioscout_read::{Decode, Fold, Phases, ProblemKind, ScanOptions, Scanner, discover};
use proptest::prelude::*;

/// Collects the `ts` of every event, in order.
#[derive(Default)]
struct Order(Vec<Option<i64>>);

impl Fold for Order {
    fn event(&mut self, event: &Event<'_>) {
        self.0.push(event.ts);
    }
}

/// Takes metadata events only: the other phases go through the counting path.
#[derive(Default)]
struct MetadataOnly(u64);

impl Fold for MetadataOnly {
    fn event(&mut self, event: &Event<'_>) {
        assert_eq!(event.phase, Some(ioscout_model::Phase::Metadata));
        self.0 += 1;
    }

    fn decode(&self) -> Decode {
        Decode::Events(Phases::of(&[ioscout_model::Phase::Metadata]))
    }
}

/// What a sequential decode finds: counts, event order, and (line, offset) of every invalid line.
fn ground_truth(text: &[u8], max_line_bytes: usize) -> (PhaseCounts, Vec<Option<i64>>, Vec<(u64, u64)>) {
    let mut counts = PhaseCounts::default();
    let mut order = Vec::new();
    let mut invalid = Vec::new();
    let mut offset = 0u64;
    let mut pieces: Vec<&[u8]> = text.split(|&byte| byte == b'\n').collect();
    if text.ends_with(b"\n") {
        pieces.pop();
    }
    for (index, line) in pieces.iter().enumerate() {
        let number = index as u64 + 1;
        if line.len() > max_line_bytes {
            counts.invalid += 1;
            invalid.push((number, offset));
        } else {
            match decode_line(line) {
                Ok(Line::Event(event)) => {
                    counts.add(event.phase.unwrap_or(ioscout_model::Phase::Other));
                    order.push(event.ts);
                }
                Ok(_) => {}
                Err(_) => {
                    counts.invalid += 1;
                    invalid.push((number, offset));
                }
            }
        }
        offset += line.len() as u64 + 1;
    }
    (counts, order, invalid)
}

fn gzip_member(data: &[u8], fake_header: bool) -> Vec<u8> {
    let mut member = vec![0x1f, 0x8b, 8, if fake_header { 4 } else { 0 }, 0, 0, 0, 0, 0, 3];
    if fake_header {
        // A plausible member header hidden in the extra field: a false boundary candidate.
        let fake = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c];
        member.extend_from_slice(&(fake.len() as u16).to_le_bytes());
        member.extend_from_slice(&fake);
    }
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = encoder.write_all(data);
    member.extend(encoder.finish().unwrap_or_default());
    let mut crc = crc32fast::Hasher::new();
    crc.update(data);
    member.extend_from_slice(&crc.finalize().to_le_bytes());
    member.extend_from_slice(&(data.len() as u32).to_le_bytes());
    member
}

fn temp_path(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("ioscout-scan-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&directory);
    directory.join(name)
}

fn scan(
    path: &PathBuf,
    unit_bytes: u64,
    threads: usize,
    max_line_bytes: usize,
    part_bytes: usize,
    window_units_per_thread: u64,
) -> (PhaseCounts, Vec<Option<i64>>, Vec<(u64, u64)>) {
    let (files, problems) = discover(&[path]);
    assert!(problems.is_empty(), "{problems:?}");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = done.clone();
    let progress: std::sync::Arc<dyn Fn(u64) + Send + Sync> = std::sync::Arc::new(move |bytes| {
        counter.fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    });
    let scanner = Scanner::new(ScanOptions {
        threads,
        unit_bytes,
        max_line_bytes,
        max_reported_problems: usize::MAX,
        progress: Some(ioscout_read::Progress(progress.clone())),
        cancel: None,
        part_bytes,
        window_units_per_thread,
    });
    let mut order = Vec::new();
    let mut spans = Vec::new();
    let report = scanner.scan(
        &files,
        &[],
        |_| Order::default(),
        |_, fold, span| {
            order.extend(fold.0);
            spans.push(span);
            ControlFlow::Continue(())
        },
    );
    assert_eq!(report.totals().invalid, report.problem_count(), "every problem is counted once");
    assert_eq!(done.load(std::sync::atomic::Ordering::Relaxed), files[0].size, "progress covers the file");
    check_chunks(&scanner, &files, &spans, &report, &order);
    // A fold that wants one phase sees exactly those events, and the counts do not change.
    let mut metadata = 0;
    let partial = scanner.scan(
        &files,
        &[],
        |_| MetadataOnly::default(),
        |_, fold, _| {
            metadata += fold.0;
            ControlFlow::Continue(())
        },
    );
    assert_eq!(partial.totals(), report.totals());
    assert_eq!(metadata, report.totals().metadata);
    let invalid = report
        .problems()
        .filter(|problem| {
            matches!(
                problem.kind,
                ProblemKind::InvalidJson
                    | ProblemKind::InvalidUtf8
                    | ProblemKind::NotAnEvent
                    | ProblemKind::LineTooLong
            )
        })
        .map(|problem| (problem.line.unwrap_or(0), problem.offset.unwrap_or(0)))
        .collect();
    (report.totals(), order, invalid)
}

/// Spans tile the file; chunks cut at clean span ends decode on their own to the same events,
/// counts and located problems as the whole scan.
fn check_chunks(
    scanner: &Scanner,
    files: &[ioscout_read::TraceFile],
    spans: &[ioscout_read::UnitSpan],
    report: &ioscout_read::ScanReport,
    order: &[Option<i64>],
) {
    let size = files[0].size;
    assert_eq!(spans.first().map(|span| span.start), Some(0));
    for pair in spans.windows(2) {
        assert_eq!(pair[0].end, pair[1].start, "spans must tile the file: {spans:?}");
        assert!(pair[0].line_base <= pair[1].line_base);
    }
    let mut chunks: Vec<ioscout_read::Chunk> = Vec::new();
    let mut open = false;
    for span in spans {
        if open && let Some(last) = chunks.last_mut() {
            last.end = span.end;
        } else {
            chunks.push(ioscout_read::Chunk {
                file: 0,
                start: span.start,
                end: span.end,
                line_base: span.line_base,
                offset_base: span.offset_base,
                resume: None,
            });
        }
        open = !span.clean_end;
    }
    if let Some(last) = chunks.last() {
        assert!(last.end <= size);
    }
    let mut chunk_order = Vec::new();
    let chunked = scanner.scan_chunks(
        files,
        &[],
        &chunks,
        |_| Order::default(),
        |_, fold| {
            chunk_order.extend(fold.0);
            ControlFlow::Continue(())
        },
    );
    assert_eq!(chunk_order, order, "chunks: {chunks:?}");
    let located = |report: &ioscout_read::ScanReport| {
        report
            .problems()
            .filter(|problem| problem.line.is_some())
            .map(|problem| (problem.line, problem.offset, problem.kind))
            .collect::<Vec<_>>()
    };
    assert_eq!(located(&chunked), located(report), "chunks: {chunks:?}");
    let mut whole = report.totals();
    let mut parts = chunked.totals();
    // Gzip-level problems (truncation, garbage) are counted once per file by the whole scan and
    // may be met again per chunk: compare the line-level counts.
    whole.invalid = 0;
    parts.invalid = 0;
    assert_eq!(parts, whole);
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => (any::<u32>(), 0u8..5, any::<bool>()).prop_map(|(ts, phase, escape)| {
            let name = if escape { "re\\\"ad" } else { "read" };
            let ph = ["\"X\"", "1", "4", "\"M\"", "3"][usize::from(phase)];
            format!(r#"{{"id":1,"name":"{name}","cat":"POSIX","pid":7,"tid":7,"ts":{ts},"dur":3,"ph":{ph},"args":{{"hhash":"ab","ret":4096}}}}"#).into_bytes()
        }),
        1 => Just(b"[".to_vec()),
        1 => Just(b"".to_vec()),
        1 => Just(b"not json".to_vec()),
        1 => Just(b"{\"ph\":\"X\",\"name\":\"\xff\"}".to_vec()),
        1 => (50usize..400).prop_map(|length| format!("{{\"ph\":1,\"name\":\"{}\"}}", "x".repeat(length)).into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn gzip_scan_equals_sequential_decode(
        lines in proptest::collection::vec(line(), 1..60),
        trailing_newline in any::<bool>(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        fake_headers in any::<bool>(),
        unit_bytes in 1u64..400,
        threads in 1usize..4,
        // A whole-file unit of at least part_bytes / 16 compressed bytes is inflated on one
        // thread and parsed in parts of about part_bytes (with several threads).
        part_bytes in prop_oneof![Just(0usize), 16usize..2000],
        // Small windows: many of them, each decoded on the pool while the one before is merged.
        window in 1u64..4,
    ) {
        let mut text = lines.join(&b'\n');
        if trailing_newline {
            text.push(b'\n');
        }
        prop_assume!(!text.is_empty());
        let mut boundaries: Vec<usize> = cuts.iter().map(|cut| cut.index(text.len())).collect();
        boundaries.push(0);
        boundaries.push(text.len());
        boundaries.sort_unstable();
        boundaries.dedup();
        let mut bytes = Vec::new();
        for (index, pair) in boundaries.windows(2).enumerate() {
            bytes.extend(gzip_member(&text[pair[0]..pair[1]], fake_headers && index % 2 == 1));
        }
        let path = temp_path(&format!("gzip-{unit_bytes}-{threads}.pfw.gz"));
        std::fs::write(&path, &bytes).map_err(|error| TestCaseError::fail(error.to_string()))?;
        let max_line_bytes = 300;
        let expected = ground_truth(&text, max_line_bytes);
        let found = scan(&path, unit_bytes, threads, max_line_bytes, part_bytes, window);
        prop_assert_eq!(found, expected);
    }

    #[test]
    fn plain_scan_equals_sequential_decode(
        lines in proptest::collection::vec(line(), 1..60),
        trailing_newline in any::<bool>(),
        unit_bytes in 1u64..400,
        threads in 1usize..4,
        window in 1u64..4,
    ) {
        let mut text = lines.join(&b'\n');
        if trailing_newline {
            text.push(b'\n');
        }
        prop_assume!(!text.is_empty() && !text.starts_with(&[0x1f, 0x8b]));
        let path = temp_path(&format!("plain-{unit_bytes}-{threads}.pfw"));
        std::fs::write(&path, &text).map_err(|error| TestCaseError::fail(error.to_string()))?;
        let max_line_bytes = 300;
        let expected = ground_truth(&text, max_line_bytes);
        let found = scan(&path, unit_bytes, threads, max_line_bytes, 4 << 20, window);
        prop_assert_eq!(found, expected);
    }
}

#[test]
fn a_limit_stops_the_scan_early() {
    let text: Vec<u8> =
        (0..1000).flat_map(|index| format!("{{\"ph\":1,\"ts\":{index}}}\n").into_bytes()).collect();
    let path = temp_path("limit.pfw");
    std::fs::write(&path, &text).unwrap_or_default();
    let (files, _) = discover(&[&path]);
    let scanner = Scanner::new(ScanOptions { unit_bytes: 100, ..ScanOptions::default() });
    let mut seen = 0;
    let report = scanner.scan(
        &files,
        &[],
        |_| Order::default(),
        |_, fold, _| {
            seen += fold.0.len();
            if seen >= 50 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        },
    );
    assert!(report.stopped);
    assert!((50..1000).contains(&seen));
}

#[test]
fn a_limit_stops_a_single_member_file_parsed_in_parts() {
    let text: Vec<u8> =
        (0..20_000).flat_map(|index| format!("{{\"ph\":1,\"ts\":{index}}}\n").into_bytes()).collect();
    let path = temp_path("limit-parts.pfw.gz");
    std::fs::write(&path, gzip_member(&text, false)).unwrap_or_default();
    let (files, _) = discover(&[&path]);
    let scanner = Scanner::new(ScanOptions { threads: 2, part_bytes: 4096, ..ScanOptions::default() });
    let mut seen = 0;
    let mut folds = 0;
    let report = scanner.scan(
        &files,
        &[],
        |_| Order::default(),
        |_, fold, _| {
            folds += 1;
            seen += fold.0.len();
            if seen >= 500 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        },
    );
    assert!(report.stopped);
    assert!(folds > 1, "the one member was parsed in parts");
    assert!((500..20_000).contains(&seen), "{seen}");
}

/// A scan whose cancel flag is raised by its consumer after the first fold: it stops, says so,
/// and hands over no fold past the next unit boundary.
fn cancelled_after_first_fold(path: &std::path::Path, options: ScanOptions) -> (bool, usize, usize) {
    let cancel = ioscout_read::Cancel::default();
    let scanner = Scanner::new(ScanOptions { cancel: Some(cancel.clone()), ..options });
    let (files, _) = discover(&[path]);
    let (mut seen, mut folds) = (0, 0);
    let report = scanner.scan(
        &files,
        &[],
        |_| Order::default(),
        |_, fold, _| {
            folds += 1;
            seen += fold.0.len();
            cancel.cancel();
            ControlFlow::Continue(())
        },
    );
    (report.stopped, folds, seen)
}

#[test]
fn a_cancelled_scan_stops_at_the_next_unit() {
    let text: Vec<u8> =
        (0..1000).flat_map(|index| format!("{{\"ph\":1,\"ts\":{index}}}\n").into_bytes()).collect();
    let path = temp_path("cancel.pfw");
    std::fs::write(&path, &text).unwrap_or_default();
    let (stopped, folds, seen) =
        cancelled_after_first_fold(&path, ScanOptions { unit_bytes: 100, ..ScanOptions::default() });
    assert!(stopped, "the report says the scan was stopped");
    assert_eq!(folds, 1, "no fold is handed over after the cancel");
    assert!(seen < 1000, "{seen}");
}

#[test]
fn a_cancelled_scan_of_one_member_parsed_in_parts_stops() {
    let text: Vec<u8> =
        (0..20_000).flat_map(|index| format!("{{\"ph\":1,\"ts\":{index}}}\n").into_bytes()).collect();
    let path = temp_path("cancel-parts.pfw.gz");
    std::fs::write(&path, gzip_member(&text, false)).unwrap_or_default();
    let options = ScanOptions { threads: 2, part_bytes: 4096, ..ScanOptions::default() };
    let (stopped, _, seen) = cancelled_after_first_fold(&path, options);
    assert!(stopped);
    assert!(seen < 20_000, "{seen}");
}

/// Panics on the event with `ts` 15,000 (a bug in a fold, not bad input).
#[derive(Default)]
struct Panicky;

impl Fold for Panicky {
    fn event(&mut self, event: &Event<'_>) {
        assert_ne!(event.ts, Some(15_000), "a fold bug");
    }
}

#[test]
fn a_fold_that_panics_in_a_part_fails_the_scan_instead_of_hanging() {
    let text: Vec<u8> =
        (0..20_000).flat_map(|index| format!("{{\"ph\":1,\"ts\":{index}}}\n").into_bytes()).collect();
    let path = temp_path("panicky-parts.pfw.gz");
    std::fs::write(&path, gzip_member(&text, false)).unwrap_or_default();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (files, _) = discover(&[&path]);
        let scanner = Scanner::new(ScanOptions { threads: 2, part_bytes: 4096, ..ScanOptions::default() });
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            scanner.scan(&files, &[], |_| Panicky, |_, _, _| ControlFlow::Continue(()));
        }));
        let _ = sender.send(outcome.is_err());
    });
    assert_eq!(
        receiver.recv_timeout(std::time::Duration::from_mins(2)),
        Ok(true),
        "the panic reaches the caller"
    );
}
