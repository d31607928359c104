//! Index builds and queries split across ranks (threads standing in for MPI ranks) give what one
//! process gives: the same index records, the same rows byte for byte, the same groups.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ioscout_index::TraceIndex;
use ioscout_index::build::{BuildOptions, build, build_distributed};
use ioscout_read::cluster::Threads;
use ioscout_service::Input;
use ioscout_service::query::{QueryRequest, query};
use ioscout_service::view::ViewFormat;

/// A sink the test can read back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(name)
}

/// A fresh copy of a fixture directory (indexes are written beside the traces).
fn copy_of(name: &str, tag: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("ioscout-distributed-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    for entry in std::fs::read_dir(testdata(name)).unwrap_or_else(|error| panic!("{error}")).flatten() {
        let is_trace = ioscout_read::input::is_trace_name(&entry.path());
        if entry.path().is_file() && is_trace {
            std::fs::copy(entry.path(), directory.join(entry.file_name()))
                .unwrap_or_else(|error| panic!("{error}"));
        }
    }
    directory
}

fn options() -> BuildOptions {
    BuildOptions { threads: 2, chunk_bytes: 4096, ..BuildOptions::default() }
}

fn run_query(directory: &Path, request: &QueryRequest, ranks: Option<usize>) -> Vec<Vec<u8>> {
    let input = |cluster| Input {
        paths: vec![directory.to_path_buf()],
        scan: ioscout_read::ScanOptions { threads: 2, ..ioscout_read::ScanOptions::default() },
        cluster,
        ..Input::default()
    };
    match ranks {
        None => {
            let sink = Captured::default();
            query(&input(None), request, Box::new(sink.clone())).unwrap_or_else(|error| panic!("{error}"));
            vec![sink.bytes()]
        }
        Some(ranks) => Threads::run(ranks, |collective| {
            let sink = Captured::default();
            query(&input(Some(collective)), request, Box::new(sink.clone()))
                .unwrap_or_else(|error| panic!("{ranks} ranks: {error}"));
            sink.bytes()
        }),
    }
}

fn requests() -> Vec<QueryRequest> {
    let mut requests = Vec::new();
    for filter in [
        None,
        Some("cat == \"POSIX\""),
        Some("name == \"read\" or dur > 1000"),
        Some("(pid == 9000 or pid == 4242) and not cat == \"POSIX\""),
    ] {
        for (format, limit) in
            [(None, None), (Some(ViewFormat::Csv), None), (None, Some(7)), (Some(ViewFormat::Chrome), None)]
        {
            for no_index in [false, true] {
                requests.push(QueryRequest {
                    filter: filter.map(String::from),
                    format,
                    limit,
                    no_index,
                    aggregate: "count".into(),
                    ..QueryRequest::default()
                });
            }
        }
        for (keys, aggregate) in [
            ("name,cat", "count,sum:dur"),
            ("cat", "count,mean:dur,p99:dur,sum:size"),
            ("pid", "count,max:dur"),
        ] {
            for no_index in [false, true] {
                requests.push(QueryRequest {
                    filter: filter.map(String::from),
                    group_by: Some(keys.into()),
                    aggregate: aggregate.into(),
                    no_index,
                    ..QueryRequest::default()
                });
            }
        }
    }
    requests
}

#[test]
fn queries_on_any_number_of_ranks_write_what_one_process_writes() {
    // `dlio_read_threads_1` is one gzip member: its chunks resume at checkpoints.
    for name in ["sample", "generations", "validation/dlio_read_threads_1"] {
        let directory = copy_of(name, &format!("query-{}", name.replace('/', "-")));
        let files = ioscout_read::discover(std::slice::from_ref(&directory)).0;
        build(&directory, &files, &options()).unwrap_or_else(|error| panic!("{error}"));
        let mut writing = 0;
        for request in requests() {
            let expected = run_query(&directory, &request, None).remove(0);
            writing += usize::from(!expected.is_empty());
            for ranks in [1, 2, 3] {
                for (rank, output) in run_query(&directory, &request, Some(ranks)).into_iter().enumerate() {
                    if rank == 0 {
                        assert!(
                            output == expected,
                            "{name} {request:?} on {ranks} ranks:\n{}\n---\n{}",
                            String::from_utf8_lossy(&output),
                            String::from_utf8_lossy(&expected)
                        );
                    } else {
                        assert!(output.is_empty(), "only rank 0 writes");
                    }
                }
            }
        }
        assert!(writing * 2 > requests().len(), "{name}: most requests write something ({writing})");
        let _ = std::fs::remove_dir_all(&directory);
    }
}

#[test]
fn an_index_built_by_several_ranks_is_the_index_one_process_builds() {
    for (ranks, name) in
        [(1, "sample"), (2, "sample"), (3, "sample"), (5, "sample"), (2, "validation/dlio_read_threads_1")]
    {
        let single = copy_of(name, &format!("index-single-{ranks}-{}", name.len()));
        let shared = copy_of(name, &format!("index-shared-{ranks}-{}", name.len()));
        let files = ioscout_read::discover(std::slice::from_ref(&single)).0;
        let expected = build(&single, &files, &options()).unwrap_or_else(|error| panic!("{error}"));
        let files = ioscout_read::discover(std::slice::from_ref(&shared)).0;
        let reports = Threads::run(ranks, |collective| {
            build_distributed(&shared, &files, &options(), collective.as_ref())
                .unwrap_or_else(|error| panic!("{error}"))
        });
        for report in &reports {
            assert_eq!(
                (report.indexed, report.chunks, report.index_bytes),
                (expected.indexed, expected.chunks, expected.index_bytes)
            );
            assert_eq!(report.index_path, reports[0].index_path);
        }
        let read = |path: &Path| {
            TraceIndex::read(path)
                .unwrap_or_else(|error| panic!("{error}"))
                .unwrap_or_else(|| panic!("no index"))
        };
        let (one, many) = (read(&expected.index_path), read(&reports[0].index_path));
        assert_eq!(one.files.len(), files.len());
        for (name, record) in &one.files {
            let other = &many.files[name];
            assert_eq!(
                (&record.chunks, record.lines, record.invalid),
                (&other.chunks, other.lines, other.invalid)
            );
            let numbers: Vec<usize> = (0..record.chunks.len()).collect();
            let chunks = |index: &TraceIndex, record: &ioscout_index::FileIndex| {
                record.scan_chunks(0, &index.path, name, &numbers).unwrap_or_else(|error| panic!("{error}"))
            };
            assert!(chunks(&one, record) == chunks(&many, other), "{name}: the same checkpoint windows");
        }
        assert_eq!(one.tables, many.tables);
        let leftovers: Vec<_> = std::fs::read_dir(shared.join(".ioscout"))
            .unwrap_or_else(|error| panic!("{error}"))
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().contains(".part-"))
            .collect();
        assert!(leftovers.is_empty(), "partial indexes are removed");
        // Unchanged files are kept on a second run, by every rank count.
        let again = Threads::run(ranks, |collective| {
            build_distributed(&shared, &files, &options(), collective.as_ref())
                .unwrap_or_else(|error| panic!("{error}"))
        });
        assert!(again.iter().all(|report| report.indexed == 0 && report.unchanged == files.len()));
        let _ = std::fs::remove_dir_all(&single);
        let _ = std::fs::remove_dir_all(&shared);
    }
}

#[test]
fn a_rank_that_cannot_read_its_file_fails_the_build_on_every_rank() {
    let directory = copy_of("sample", "failure");
    let files = ioscout_read::discover(std::slice::from_ref(&directory)).0;
    let gone = files.iter().max_by_key(|file| file.size).map(|file| file.path.clone()).unwrap_or_default();
    std::fs::remove_file(&gone).unwrap_or_else(|error| panic!("{error}"));
    let reports =
        Threads::run(2, |collective| build_distributed(&directory, &files, &options(), collective.as_ref()));
    for report in reports {
        let message = report.map(|_| ()).err().map(|error| error.to_string()).unwrap_or_default();
        assert!(message.contains(&gone.display().to_string()), "{message}");
    }
    assert!(!directory.join(".ioscout/index.redb").exists(), "no index from a failed build");
    // (A query's failure needs ranks that see different file systems: tests/mpi/run.sh runs one
    // with a rank in another working directory.)
    let _ = std::fs::remove_dir_all(&directory);
}
