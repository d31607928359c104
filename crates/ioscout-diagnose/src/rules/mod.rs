//! The rules, one per file, and the list of them ([`all`]).
//!
//! Shared helpers: [`impact`] weighs a rule on a layer by how much of the job that layer takes,
//! so that a pattern in I/O that costs a negligible share of the run is reported as low severity
//! (the optimisation pipeline's lesson: many tiny operations taking 1 % of the job are not the
//! bottleneck).

mod dfanalyzer_bandwidth_saturation;
mod dfanalyzer_compute_dominance;
mod dfanalyzer_fetch_outlier;
mod dfanalyzer_fetch_pressure;
mod dfanalyzer_fetch_rank_imbalance;
mod dfanalyzer_io_contention;
mod dfanalyzer_metadata_dominance;
mod dfanalyzer_open_pressure;
mod dfanalyzer_read_contention;
mod dfanalyzer_read_pressure;
mod dfanalyzer_reader_open_tail;
mod pipeline_checkpoint_share;
mod pipeline_io_share;
mod pipeline_low_overlap;
mod pipeline_metadata_share;
mod pipeline_op_count_bound;
mod pipeline_rank_imbalance;
mod pipeline_small_files;
#[cfg(test)]
pub(crate) mod table_tests;

pub use dfanalyzer_bandwidth_saturation::BandwidthSaturation;
pub use dfanalyzer_compute_dominance::ComputeDominance;
pub use dfanalyzer_fetch_outlier::FetchOutlier;
pub use dfanalyzer_fetch_pressure::FetchPressure;
pub use dfanalyzer_fetch_rank_imbalance::FetchRankImbalance;
pub use dfanalyzer_io_contention::IoContention;
pub use dfanalyzer_metadata_dominance::MetadataDominance;
pub use dfanalyzer_open_pressure::OpenPressure;
pub use dfanalyzer_read_contention::ReadContention;
pub use dfanalyzer_read_pressure::ReadPressure;
pub use dfanalyzer_reader_open_tail::ReaderOpenTail;
pub use pipeline_checkpoint_share::CheckpointShare;
pub use pipeline_io_share::IoShare;
pub use pipeline_low_overlap::LowOverlap;
pub use pipeline_metadata_share::MetadataShare;
pub use pipeline_op_count_bound::OpCountBound;
pub use pipeline_rank_imbalance::RankImbalance;
pub use pipeline_small_files::SmallFiles;

use crate::{Context, Rule};

/// Every rule, in code order.
pub fn all() -> &'static [&'static dyn Rule] {
    &[
        &BandwidthSaturation,
        &ComputeDominance,
        &FetchOutlier,
        &FetchPressure,
        &FetchRankImbalance,
        &IoContention,
        &MetadataDominance,
        &OpenPressure,
        &ReadContention,
        &ReadPressure,
        &ReaderOpenTail,
        &CheckpointShare,
        &IoShare,
        &LowOverlap,
        &MetadataShare,
        &OpCountBound,
        &RankImbalance,
        &SmallFiles,
    ]
}

/// The rule with code `code`.
pub fn find(code: &str) -> Option<&'static dyn Rule> {
    all().iter().copied().find(|rule| rule.doc().code.eq_ignore_ascii_case(code))
}

/// Share of the job that layer `layer` takes (its bottleneck-process time over the job time),
/// scaled so that 20 % or more counts fully: 0..=1.
pub fn impact(context: &Context<'_>, layer: &str) -> f64 {
    let job = context.job_time_s();
    match context.layer(layer) {
        Some(line) if job > 0.0 => crate::clip01(line.time_s / job / 0.2),
        _ => 0.0,
    }
}

/// One MiB, the small-request boundary of WisIO, Drishti and DFAnalyzer.
pub const MIB: f64 = 1_048_576.0;

#[cfg(test)]
pub(crate) mod testing {
    //! Analyses of synthetic traces for the rules' positive and negative tests.

    use std::io::Write;

    use ioscout_analysis::{Analysis, AnalysisOptions, OverlapMode, analyze};

    /// Analyses `lines` (DFTracer 2.2 events) with `preset`.
    pub(crate) fn analysis(name: &str, preset: &str, lines: &[String]) -> Analysis {
        let directory = std::env::temp_dir().join(format!("ioscout-diagnose-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
        let path = directory.join("trace.pfw");
        let mut file = std::fs::File::create(&path).unwrap_or_else(|error| panic!("{error}"));
        for line in lines {
            writeln!(file, "{line}").unwrap_or_else(|error| panic!("{error}"));
        }
        drop(file);
        let (files, problems) = ioscout_read::discover(&[path]);
        let scanner = ioscout_read::Scanner::new(ioscout_read::ScanOptions::default());
        let options = AnalysisOptions {
            preset: ioscout_analysis::PresetName::parse(preset).unwrap_or_default(),
            overlap: OverlapMode::Exact,
            ..AnalysisOptions::default()
        };
        let (analysis, _) =
            analyze(&scanner, &files, &problems, &options).unwrap_or_else(|error| panic!("{error}"));
        let _ = std::fs::remove_dir_all(&directory);
        analysis
    }

    /// One complete event of process `pid` on host `h`.
    pub(crate) fn event(pid: i64, name: &str, cat: &str, ts: i64, dur: i64, args: &str) -> String {
        let comma = if args.is_empty() { "" } else { "," };
        format!(
            r#"{{"id":1,"name":"{name}","cat":"{cat}","pid":{pid},"tid":{pid},"ts":{ts},"dur":{dur},"ph":1,"args":{{"hhash":"h"{comma}{args}}}}}"#
        )
    }

    /// A POSIX call on file hash `f1` (named `/p/data/f1`) moving `size` bytes.
    pub(crate) fn posix(pid: i64, name: &str, ts: i64, dur: i64, size: i64) -> String {
        event(pid, name, "POSIX", ts, dur, &format!(r#""fhash":"f1","ret":{size}"#))
    }

    /// The metadata lines naming host `h` and file `f1`.
    pub(crate) fn header() -> Vec<String> {
        vec![
            r#"{"id":0,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"h","name":"node1","value":"h"}}"#.to_string(),
            r#"{"id":0,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"h","name":"/p/data/f1","value":"f1"}}"#.to_string(),
        ]
    }
}
