//! Property tests of index pruning: on fixtures of every DFTracer generation, indexed with small
//! chunks, for random predicates, reading only the chunks the index cannot rule out returns
//! exactly the rows of a full scan, in the same order; and no chunk judged `False` holds a
//! matching event, no chunk judged `True` holds a non-matching one.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ioscout_index::build::{BuildOptions, build};
use ioscout_index::{TraceIndex, store};
use ioscout_model::{Event, HashTables};
use ioscout_query::Predicate;
use ioscout_query::prune::Truth;
use ioscout_read::event::Args;
use ioscout_read::{Chunk, Fold, ScanOptions, Scanner, TraceFile, discover};
use proptest::prelude::*;

/// One directory per fixture folder, indexed with 2 KiB chunks.
struct Fixture {
    files: Vec<TraceFile>,
    index: TraceIndex,
}

fn fixtures() -> &'static Vec<Fixture> {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("ioscout-pruning-{}", std::process::id()));
        let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut fixtures = Vec::new();
        // `validation/dlio_read_threads_1` is one gzip member: its chunks start at checkpoints.
        for folder in ["generations", "sample", "validation/dlio_read_threads_1"] {
            let directory = root.join(folder);
            let _ = std::fs::create_dir_all(&directory);
            for entry in std::fs::read_dir(testdata.join(folder)).into_iter().flatten().flatten() {
                let path = entry.path();
                if ioscout_read::input::is_trace_name(&path) {
                    let _ = std::fs::copy(&path, directory.join(entry.file_name()));
                }
            }
            let (files, _) = discover(&[&directory]);
            let options = BuildOptions { chunk_bytes: 2048, ..BuildOptions::default() };
            let report = build(&directory, &files, &options).unwrap_or_else(|error| panic!("{error}"));
            let index = TraceIndex::read(&report.index_path)
                .unwrap_or_else(|error| panic!("{error}"))
                .unwrap_or_else(|| panic!("no index at {}", report.index_path.display()));
            fixtures.push(Fixture { files, index });
        }
        fixtures
    })
}

/// Collects the matching events (as their JSON-ish debug text) and the non-matching count.
struct Collect<'p> {
    predicate: &'p Predicate,
    tables: &'p HashTables,
    rows: Vec<String>,
    misses: u64,
}

impl Fold for Collect<'_> {
    fn event(&mut self, event: &Event<'_>) {
        let args = Args::of(event);
        if self.predicate.matches_with_args(event, &args, self.tables) {
            self.rows.push(format!("{event:?}"));
        } else {
            self.misses += 1;
        }
    }
}

fn chunks_of(fixture: &Fixture) -> Vec<(Chunk, &ioscout_index::ChunkStats)> {
    let mut chunks = Vec::new();
    for (file_index, file) in fixture.files.iter().enumerate() {
        let key = ioscout_index::build::file_key(file.path.parent().unwrap_or(Path::new(".")), &file.path);
        let Some(record) = fixture.index.files.get(&key) else { panic!("{key} not indexed") };
        let numbers: Vec<usize> = (0..record.chunks.len()).collect();
        let scan_chunks = record
            .scan_chunks(file_index, &fixture.index.path, &key, &numbers)
            .unwrap_or_else(|error| panic!("{error}"));
        for (chunk, entry) in scan_chunks.into_iter().zip(&record.chunks) {
            chunks.push((chunk, &entry.stats));
        }
    }
    chunks
}

fn check(expression: &str) -> Result<(), TestCaseError> {
    let Ok(predicate) = Predicate::parse(expression) else { return Ok(()) };
    let scanner = Scanner::new(ScanOptions { threads: 2, ..ScanOptions::default() });
    for fixture in fixtures() {
        let tables = &fixture.index.tables;
        let make = |_| Collect { predicate: &predicate, tables, rows: Vec::new(), misses: 0 };
        let mut full = Vec::new();
        scanner.scan(&fixture.files, &[], make, |_, fold, _| {
            full.extend(fold.rows);
            ControlFlow::Continue(())
        });
        let all = chunks_of(fixture);
        let kept: Vec<Chunk> = all
            .iter()
            .filter(|(_, stats)| predicate.chunk_may_match(stats, tables))
            .map(|(chunk, _)| chunk.clone())
            .collect();
        let mut pruned = Vec::new();
        scanner.scan_chunks(&fixture.files, &[], &kept, make, |_, fold| {
            pruned.extend(fold.rows);
            ControlFlow::Continue(())
        });
        prop_assert_eq!(&pruned, &full, "{}: kept {} of {} chunks", expression, kept.len(), all.len());
        // Each chunk's verdict holds for each of its events.
        for (chunk, stats) in &all {
            let truth = predicate.chunk_truth(stats, tables);
            let mut rows = 0;
            let mut misses = 0;
            scanner.scan_chunks(&fixture.files, &[], std::slice::from_ref(chunk), make, |_, fold| {
                rows += fold.rows.len();
                misses += fold.misses;
                ControlFlow::Continue(())
            });
            match truth {
                Truth::False => prop_assert_eq!(rows, 0, "{}: a chunk judged False matches", expression),
                Truth::True => prop_assert_eq!(misses, 0, "{}: a chunk judged True misses", expression),
                Truth::Unknown => {}
            }
        }
    }
    Ok(())
}

fn value_for(field: &str) -> BoxedStrategy<String> {
    let quoted = |values: &'static [&'static str]| {
        proptest::sample::select(values).prop_map(|value| format!("\"{value}\"")).boxed()
    };
    match field {
        "name" => quoted(&[
            "read",
            "pread64",
            "write",
            "open64",
            "close",
            "FH",
            "HH",
            "start",
            "compute",
            "fetch.iter",
            "openat",
            "cpu",
            "nothing",
        ]),
        "cat" => quoted(&[
            "POSIX",
            "STDIO",
            "dftracer",
            "reader",
            "data",
            "sys",
            "dataloader",
            "compute",
            "ai_root",
            "none",
        ]),
        "host" => quoted(&[
            "node01",
            "node02",
            "corona237",
            "corona171",
            "lassen12",
            "tuolumne3",
            "f4516f5562e07e45",
            "nohost",
        ]),
        "file" => quoted(&[
            "/p/lustre/user/dlio-runs/unet3d/data/train/img_05_of_64.npz",
            "/p/gpfs1/user/unet3d/img_0.npz",
            "/p/lustre1/user/data/file_1.bat",
            "/l/ssd/data/shard_1.tfrecord",
            "/p/vast1/user/ckpt/model.pt",
            "/nowhere",
        ]),
        "ph" => proptest::sample::select(&["X", "M", "C", "A", "1", "4", "complete"][..])
            .prop_map(str::to_string)
            .boxed(),
        "pid" => proptest::sample::select(
            &[9000i64, 9010, 9011, 9100, 9110, 777, 1_338_896, 1_028_567, 4242, 0, 5][..],
        )
        .prop_map(|value| value.to_string())
        .boxed(),
        "tid" => proptest::sample::select(&[9000i64, 9111, 777, 0, 4243, 2_677_792, 1][..])
            .prop_map(|value| value.to_string())
            .boxed(),
        "ts" => prop_oneof![
            Just("1795000000150000".to_string()),
            Just("1795000001000000".to_string()),
            Just("1698080323790000".to_string()),
            Just("1750000000010000".to_string()),
            (1_698_000_000_000_000i64..1_800_000_000_000_000).prop_map(|value| value.to_string()),
        ]
        .boxed(),
        "dur" => {
            prop_oneof![(0i64..70_000).prop_map(|value| value.to_string()), Just("2.5".to_string())].boxed()
        }
        "args.ret" => {
            prop_oneof![Just("262144".to_string()), Just("0".to_string()), Just("\"x\"".to_string())].boxed()
        }
        _ => Just("1".to_string()).boxed(),
    }
}

fn leaf() -> impl Strategy<Value = String> {
    const FIELDS: [&str; 12] =
        ["name", "cat", "host", "file", "ph", "pid", "tid", "ts", "dur", "args.ret", "id", "type"];
    proptest::sample::select(&FIELDS[..]).prop_flat_map(|field| {
        let numeric = matches!(field, "pid" | "tid" | "ts" | "dur" | "id" | "type");
        let operators: &'static [&'static str] = if field == "ph" {
            &["==", "!="]
        } else if numeric {
            &["==", "!=", "<", "<=", ">", ">="]
        } else {
            &["==", "!=", "<", ">=", "~", "!~", "in"]
        };
        (Just(field), proptest::sample::select(operators), value_for(field), value_for(field)).prop_map(
            |(field, operator, value, other)| match operator {
                "in" => format!("{field} in ({value}, {other})"),
                "~" | "!~" => {
                    let pattern = value.trim_matches('"');
                    let pattern = pattern.get(..pattern.len().min(4)).unwrap_or_default();
                    format!("{field} {operator} \"^{}\"", regex_escape(pattern))
                }
                _ => format!("{field} {operator} {value}"),
            },
        )
    })
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() { character.to_string() } else { format!("\\\\{character}") }
        })
        .collect()
}

fn expression() -> impl Strategy<Value = String> {
    leaf().prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(left, right)| format!("({left}) and ({right})")),
            (inner.clone(), inner.clone()).prop_map(|(left, right)| format!("({left}) or ({right})")),
            inner.prop_map(|inner| format!("not ({inner})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(80))]

    #[test]
    fn pruned_queries_return_exactly_the_full_scan_rows(expression in expression()) {
        check(&expression)?;
    }
}

#[test]
fn selective_predicates_prune_most_chunks() {
    let fixture = &fixtures()[1];
    let tables = &fixture.index.tables;
    let all = chunks_of(fixture);
    let count = |text: &str| {
        let predicate = Predicate::parse(text).unwrap_or_else(|error| panic!("{error}"));
        all.iter().filter(|(_, stats)| predicate.chunk_may_match(stats, tables)).count()
    };
    assert!(all.len() >= 12, "fixture too small to show pruning: {} chunks", all.len());
    assert!(count("host == \"node02\" and pid == 9110") * 4 < all.len());
    assert!(count("name == \"write\"") * 4 < all.len());
    assert_eq!(count("pid == 123456"), 0);
    assert_eq!(count("file ~ \"^/nowhere\""), 0);
    // Metadata events carry no ts: `not (ts > 0)` holds for them, so it prunes nothing there.
    assert_eq!(count("not ph in (X, M)"), 0);
    assert!(count("not (ts > 0)") > 0);
    for expression in [
        "host == \"node02\" and pid == 9110",
        "name == \"write\"",
        "file ~ \"img_1\"",
        "not (cat == \"POSIX\")",
    ] {
        check(expression).unwrap_or_else(|error| panic!("{error}"));
    }
}

#[test]
fn index_candidates_paths_are_stable() {
    let paths = store::candidate_paths(Path::new("/tmp/some/traces"), None);
    assert_eq!(paths[0], PathBuf::from("/tmp/some/traces/.ioscout/index.redb"));
    let elsewhere = store::candidate_paths(Path::new("/tmp/some/traces"), Some(Path::new("/scratch")));
    assert!(elsewhere[0].starts_with("/scratch"));
    assert_eq!(elsewhere, store::candidate_paths(Path::new("/tmp/some/traces"), Some(Path::new("/scratch"))));
}
