//! A distributed analysis ([`ioscout_analysis::analyze_distributed`]) over 1 to 5 ranks (threads
//! standing in for MPI ranks) gives exactly what one process gives: the same JSON, the same scan
//! report, on every rank, for every bundled trace and every view.

#![allow(clippy::print_stderr, reason = "tests say on stderr why they skip")]

use std::path::{Path, PathBuf};

use ioscout_analysis::{AnalysisOptions, Binning, OverlapMode, analyze, analyze_distributed};
use ioscout_read::cluster::{ClusterError, Threads};
use ioscout_read::{ScanOptions, Scanner};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(name)
}

fn options(preset: &str, compat: bool) -> AnalysisOptions {
    AnalysisOptions {
        preset: ioscout_analysis::PresetName::parse(preset).unwrap_or_default(),
        views: ioscout_analysis::views::VIEW_TYPES.to_vec(),
        time_granularity_s: 0.5,
        overlap: if compat { OverlapMode::Binned } else { OverlapMode::Exact },
        binning: if compat { Binning::Dfanalyzer009 } else { Binning::Relative },
        file_totals: false,
    }
}

fn report_json(report: &ioscout_read::ScanReport) -> String {
    serde_json::to_string(&report.files).unwrap_or_default()
}

fn check(paths: &[PathBuf], options: &AnalysisOptions, unit_bytes: u64, rank_counts: &[usize]) {
    let (files, problems) = ioscout_read::discover(paths);
    assert!(!files.is_empty(), "no trace under {paths:?}");
    let scanner = Scanner::new(ScanOptions { threads: 2, unit_bytes, ..ScanOptions::default() });
    let (single, single_report) =
        analyze(&scanner, &files, &problems, options).unwrap_or_else(|error| panic!("{error}"));
    let expected = serde_json::to_string(&single).unwrap_or_default();
    let expected_output =
        serde_json::to_string(&ioscout_analysis::output::dfanalyzer_json(&single)).unwrap_or_default();
    assert!(single.raw.total_event_count > 0);
    for &ranks in rank_counts {
        let results = Threads::run(ranks, |collective| {
            analyze_distributed(&scanner, &files, &problems, options, collective.as_ref())
        });
        for (rank, result) in results.into_iter().enumerate() {
            let (analysis, report) = result.unwrap_or_else(|error| panic!("rank {rank} of {ranks}: {error}"));
            assert_eq!(
                serde_json::to_string(&analysis).unwrap_or_default(),
                expected,
                "{paths:?} rank {rank} of {ranks}"
            );
            assert_eq!(
                serde_json::to_string(&ioscout_analysis::output::dfanalyzer_json(&analysis))
                    .unwrap_or_default(),
                expected_output
            );
            assert_eq!(report_json(&report), report_json(&single_report), "{paths:?} report, {ranks} ranks");
        }
    }
}

#[test]
fn every_rank_count_gives_the_single_process_analysis() {
    // Small units, so files are cut into several folds and the per-file merge is exercised.
    let all = [1, 2, 3, 5];
    check(&[testdata("sample")], &options("auto", false), 4096, &all);
    check(&[testdata("sample")], &options("dlio-prev", true), 4096, &all);
    check(&[testdata("generations")], &options("auto", false), 4096, &all);
    check(&[testdata("overlap")], &options("auto", false), 4096, &all);
    check(&[testdata("validation")], &options("auto", false), 64 << 10, &[2, 4]);
    check(&[testdata("bad"), testdata("sample")], &options("posix", false), 4096, &all);
}

#[test]
fn corpus_folders_give_the_single_process_analysis() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dftracer");
    let Ok(entries) = std::fs::read_dir(&corpus) else {
        ioscout_testkit::skip(&format!("{} is absent", corpus.display()));
        return;
    };
    let mut folders: Vec<PathBuf> =
        entries.filter_map(Result::ok).map(|entry| entry.path()).filter(|path| path.is_dir()).collect();
    folders.sort();
    for folder in folders {
        check(std::slice::from_ref(&folder), &options("auto", false), 1 << 20, &[2, 4]);
    }
}

#[test]
fn a_file_a_rank_cannot_read_fails_every_rank_naming_it() {
    let directory = std::env::temp_dir().join(format!("ioscout-distributed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    for entry in std::fs::read_dir(testdata("sample")).unwrap_or_else(|error| panic!("{error}")).flatten() {
        let _ = std::fs::copy(entry.path(), directory.join(entry.file_name()));
    }
    let (files, problems) = ioscout_read::discover(std::slice::from_ref(&directory));
    // The file vanishes after discovery, as a node-local path would on the other nodes.
    let gone = files.iter().max_by_key(|file| file.size).map(|file| file.path.clone()).unwrap_or_default();
    std::fs::remove_file(&gone).unwrap_or_else(|error| panic!("{error}"));
    let scanner = Scanner::new(ScanOptions { threads: 1, ..ScanOptions::default() });
    let results = Threads::run(3, |collective| {
        analyze_distributed(&scanner, &files, &problems, &options("auto", false), collective.as_ref())
    });
    for result in results {
        match result {
            Err(ioscout_analysis::AnalysisError::Cluster(ClusterError::Rank {
                rank, size, message, ..
            })) => {
                assert_eq!((rank, size), (0, 3), "the largest file goes to rank 0");
                assert!(message.contains(&gone.display().to_string()), "{message}");
            }
            other => panic!("expected a rank failure, got {other:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(&directory);
}
