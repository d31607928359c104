//! The file totals ([`AnalysisOptions::file_totals`]: each file's sums over every process, kept
//! without the `file_name` view's cell per file, process and class) are the `file_name` view's
//! `time_sum` and `size_sum`, row for row and in its order, whether the trace is read in one
//! unit or many, by one process or by several ranks.

use std::path::{Path, PathBuf};

use ioscout_analysis::{AnalysisOptions, FileTotal, OverlapMode, ViewType, analyze, analyze_distributed};
use ioscout_read::cluster::Threads;
use ioscout_read::{ScanOptions, Scanner};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(name)
}

/// A (file, layer) row: path, layer, seconds, bytes.
type Row = (String, String, f64, Option<u64>);

/// The file view's rows, read off the view itself (not through
/// [`ioscout_analysis::Analysis::file_totals`]).
fn from_view(analysis: &ioscout_analysis::Analysis) -> Vec<Row> {
    let Some(view) = analysis.view(ViewType::FileName) else { panic!("no file view") };
    view.rows
        .iter()
        .map(|row| (row.key.clone(), row.slot_name(), row.metrics.time_sum, row.metrics.size_sum))
        .collect()
}

/// The file totals as rows.
fn rows(totals: &[FileTotal]) -> Vec<Row> {
    totals.iter().map(|total| (total.path.clone(), total.layer.clone(), total.time_s, total.size)).collect()
}

fn check(paths: &[PathBuf], preset: &str, unit_bytes: u64) {
    let (files, problems) = ioscout_read::discover(paths);
    assert!(!files.is_empty(), "no trace under {paths:?}");
    let scanner = Scanner::new(ScanOptions { threads: 2, unit_bytes, ..ScanOptions::default() });
    let base = AnalysisOptions {
        preset: ioscout_analysis::PresetName::parse(preset).unwrap_or_default(),
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let with_view = AnalysisOptions { views: vec![ViewType::TimeRange, ViewType::FileName], ..base.clone() };
    let totals_only = AnalysisOptions { file_totals: true, ..base.clone() };
    let run = |options: &AnalysisOptions| {
        analyze(&scanner, &files, &problems, options).unwrap_or_else(|error| panic!("{paths:?}: {error}")).0
    };
    let viewed = run(&with_view);
    let expected = from_view(&viewed);
    assert!(!expected.is_empty(), "{paths:?}: the file view has no rows");
    assert_eq!(
        rows(&viewed.file_totals),
        expected,
        "{paths:?}: the totals of an analysis with the file view"
    );
    let totalled = run(&totals_only);
    assert!(totalled.view(ViewType::FileName).is_none());
    assert_eq!(rows(&totalled.file_totals), expected, "{paths:?}: the totals kept without the file view");
    assert!(run(&base).file_totals.is_empty(), "{paths:?}: totals neither asked for nor viewed");
    // Another view by file keeps the (file, process, class) cells: the totals come from those.
    for view in [ViewType::FileDir, ViewType::FilePattern] {
        let beside = AnalysisOptions { views: vec![ViewType::TimeRange, view], ..totals_only.clone() };
        assert_eq!(rows(&run(&beside).file_totals), expected, "{paths:?}: the totals beside {view:?}");
    }
    for ranks in [2, 3] {
        let results = Threads::run(ranks, |collective| {
            analyze_distributed(&scanner, &files, &problems, &totals_only, collective.as_ref())
        });
        for (rank, result) in results.into_iter().enumerate() {
            let (analysis, _) = result.unwrap_or_else(|error| panic!("rank {rank} of {ranks}: {error}"));
            assert_eq!(rows(&analysis.file_totals), expected, "{paths:?}: rank {rank} of {ranks}");
        }
    }
}

#[test]
fn file_totals_are_the_file_views_sums() {
    // Units of 4 KiB: each file is folded in several parts, merged with ids translated.
    check(&[testdata("sample")], "auto", 4096);
    check(&[testdata("sample")], "auto", 64 << 20);
    check(&[testdata("generations")], "auto", 4096);
    check(&[testdata("overlap")], "auto", 4096);
    check(&[testdata("validation")], "posix", 64 << 10);
    check(&[testdata("bad"), testdata("sample")], "posix", 4096);
}
